package memorymain

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/bert"
	"github.com/openhuman-go/openhuman-go/services/memory/minilm"
)

// ownFigures are the published sentences' cosines as the model of files
// computes them: figures it passes.
func ownFigures(t *testing.T, files map[string][]byte) []bert.PairFigure {
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e, err := bert.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []bert.PairFigure
	for _, f := range bert.EmbedderFigures {
		a, _ := e.Embed(f.A)
		b, _ := e.Embed(f.B)
		var cos float64
		for i := range a {
			cos += float64(a[i]) * float64(b[i])
		}
		out = append(out, bert.PairFigure{A: f.A, B: f.B, Want: cos})
	}
	return out
}

// TestHandOverToTheSentenceModel: memory serves with hash-glove while the
// sentence model comes; once it is fetched and passes its self-check,
// memory hands over to it in the same process, every item, those learned
// before included, is embedded again in its space, and the vector search
// finds them there; at the next start it is loaded from disk without
// holding the start up.
func TestHandOverToTheSentenceModel(t *testing.T) {
	files := randomModel(t)
	figs := ownFigures(t, files)
	tuneModels = func(o *minilm.Options) { o.Figures = figs }
	t.Cleanup(func() { tuneModels = nil })
	ns := mustJetStream(t)
	hub := serveModel(t, files)
	cfg := minilmConfig(t, ns.ClientURL(), hub.URL, t.TempDir())
	s := startReplica(t, cfg)
	first := s.current()
	learn(t, s, "the weather is lovely today")
	if p := first.EmbeddingProgress(context.Background()); !strings.HasPrefix(p.Model, "hash-glove") {
		t.Fatalf("memory embeds with %s while the model comes", p.Model)
	}
	m := waitState(t, s, contract.ModelReady, nil)
	if m.Detail != "sentence-transformers/all-MiniLM-L6-v2 is loaded, self-checked, and embeds" {
		t.Errorf("ready: %+v", m)
	}
	// The model is ready a moment before the domain built on it serves.
	deadline := time.Now().Add(20 * time.Second)
	for s.current() == first && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	learn(t, s, "he drove to the stadium")
	var p *contract.EmbeddingProgress
	for p = s.current().EmbeddingProgress(context.Background()); p.Pending != 0 && time.Now().Before(deadline); p = s.current().EmbeddingProgress(context.Background()) {
		time.Sleep(5 * time.Millisecond)
	}
	if s.current() == first || p.Model != "all-MiniLM-L6-v2@"+slowCommit[:12] || p.Pending != 0 {
		t.Fatalf("after the fetch: %s, %d pending", p.Model, p.Pending)
	}
	res, err := s.current().Fetch(context.Background(), memory.FetchParams{Query: "the weather is lovely today", Mode: "vector"}, contract.CallContext{Source: "mcp:test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 {
		t.Fatalf("the vector search found %d items in the model's space, want both", len(res.Hits))
	}

	// The next start finds the model on disk: it serves at once, loads the
	// model in the background and hands over, the vectors still there.
	stopReplica(t, s)
	hub.Close()
	next := startReplica(t, cfg)
	waitState(t, next, contract.ModelReady, nil)
	for next.current().EmbeddingProgress(context.Background()).Model != p.Model && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	res, err = next.current().Fetch(context.Background(), memory.FetchParams{Query: "he drove to the stadium", Mode: "vector"}, contract.CallContext{Source: "mcp:test"})
	if err != nil || len(res.Hits) != 2 {
		t.Fatalf("after the next start: %v, %d hits", err, len(res.Hits))
	}
}

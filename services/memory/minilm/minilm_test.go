package minilm

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory/bert"
	"github.com/openhuman-go/openhuman-go/services/memory/hfhub"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
)

const testCommit = "89abcdef0123456789abcdef0123456789abcdef"

var testRepo = hfhub.Repo{Name: "test/tiny-bert", Revision: "main", Files: modelFiles}

// tinyModel is a small random BERT (with a reranker's head) as the hub
// would serve its files.
func tinyModel(t *testing.T) map[string][]byte {
	t.Helper()
	vocab := strings.Fields("[PAD] [UNK] [CLS] [SEP] [MASK] the weather is lovely today . it ' s so sunny outside ! he drove to stadium how many people live in berlin ?")
	c := bert.Config{VocabSize: len(vocab), Hidden: 16, Layers: 1, Heads: 2, Intermediate: 32, MaxPositions: 64, TypeVocabSize: 2, HiddenAct: "gelu"}
	files, err := bert.ModelFiles(c, vocab, bert.RandomTensors(c, 5, true))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// hub serves files at /test/tiny-bert/resolve/{main,<commit>}/<file> and
// counts requests.
type hub struct {
	files   map[string][]byte
	anyRepo bool // serve the files under any owner/name
	// hold, when set, holds the weights back until it is closed.
	hold  chan struct{}
	mu    sync.Mutex
	calls int
	srv   *httptest.Server
}

func newHub(t *testing.T, files map[string][]byte) *hub {
	return startHub(t, &hub{files: files})
}

func startHub(t testing.TB, h *hub) *hub {
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.calls++
		h.mu.Unlock()
		rest, _ := strings.CutPrefix(r.URL.Path, "/"+testRepo.Name+"/resolve/")
		if h.anyRepo {
			_, rest, _ = strings.Cut(r.URL.Path, "/resolve/")
		}
		_, file, _ := strings.Cut(rest, "/")
		data, ok := h.files[file]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if h.hold != nil && file == bert.WeightsFile {
			<-h.hold
		}
		w.Header().Set("X-Repo-Commit", testCommit)
		http.ServeContent(w, r, file, time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hub) requests() int { h.mu.Lock(); defer h.mu.Unlock(); return h.calls }

// logBuffer keeps what was logged, for the messages a user would read.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *logBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

func testOptions(t *testing.T, hubURL string, figures []bert.PairFigure, log io.Writer) Options {
	repo := testRepo
	return Options{Dir: t.TempDir(), HubURL: hubURL, Repo: &repo, Figures: figures,
		Backoff: hfhub.Backoff{Min: 10 * time.Millisecond, Max: 50 * time.Millisecond},
		Log:     slog.New(slog.NewTextHandler(log, nil))}
}

// ownFigures are the figures' pairs as the tiny model scores them: what
// it must reproduce to pass.
func ownFigures(t testing.TB, files map[string][]byte, reranker bool) []bert.PairFigure {
	dir := t.TempDir()
	for name, data := range files {
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	e, err := bert.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []bert.PairFigure
	if reranker {
		for _, f := range bert.RerankerFigures {
			s, _ := e.Score(f.A, f.B)
			out = append(out, bert.PairFigure{A: f.A, B: f.B, Want: float64(s)})
		}
		return out
	}
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

func wait(t *testing.T, ch <-chan error) error {
	t.Helper()
	if ch == nil {
		t.Fatal("no background fetch was started")
	}
	select {
	case err := <-ch:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the background fetch did not end")
	}
	return nil
}

// TestEmbedderFallsBackUntilFetched: the first start embeds with the
// fallback, at once, while the model is fetched; the next start uses the
// model, named with its commit, offline.
func TestEmbedderFallsBackUntilFetched(t *testing.T) {
	files := tinyModel(t)
	h := newHub(t, files)
	o := testOptions(t, h.srv.URL, ownFigures(t, files, false), io.Discard)
	fallback := localembed.NewGloveEmbedder(256)
	start := time.Now()
	emb, fetching := OpenEmbedder(context.Background(), o, fallback)
	if emb != fallback {
		t.Fatalf("first start: %s, want the fallback", emb.Model())
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the first start waited %s", d)
	}
	if err := wait(t, fetching); err != nil {
		t.Fatal(err)
	}
	h.srv.Close()
	emb, fetching = OpenEmbedder(context.Background(), o, fallback)
	if fetching != nil || emb.Model() != "tiny-bert@"+testCommit[:12] {
		t.Fatalf("next start: %s", emb.Model())
	}
	vecs, err := emb.Embed(context.Background(), []string{"the weather is lovely", "he drove to the stadium"})
	if err != nil || len(vecs) != 2 || len(vecs[0]) != 16 {
		t.Fatalf("%v %v", vecs, err)
	}
}

// TestEmbedderRefusesWrongModel: a model that loads but misses the
// published figures is refused with expected and found in the log, the
// fallback stays, and it is not fetched again.
func TestEmbedderRefusesWrongModel(t *testing.T) {
	files := tinyModel(t)
	h := newHub(t, files)
	var log logBuffer
	o := testOptions(t, h.srv.URL, nil, &log)
	fallback := localembed.NewGloveEmbedder(256)
	_, fetching := OpenEmbedder(context.Background(), o, fallback)
	if err := wait(t, fetching); err != nil {
		t.Fatal(err)
	}
	before := h.requests()
	emb, fetching := OpenEmbedder(context.Background(), o, fallback)
	if emb != fallback || fetching != nil {
		t.Fatalf("a wrong model was used (%s) or fetched again", emb.Model())
	}
	if !strings.Contains(log.String(), "expected 0.6660 ± 0.01, found ") {
		t.Errorf("the refusal does not say expected and found:\n%s", log.String())
	}
	if h.requests() != before {
		t.Error("the hub was asked again")
	}
}

// TestModelsOff: off, nothing is fetched or written and the fallback is
// used.
func TestModelsOff(t *testing.T) {
	h := newHub(t, tinyModel(t))
	o := testOptions(t, h.srv.URL, nil, io.Discard)
	o.Off = true
	fallback := localembed.NewGloveEmbedder(256)
	if emb, fetching := OpenEmbedder(context.Background(), o, fallback); emb != fallback || fetching != nil {
		t.Fatal("models off still opened or fetched one")
	}
	if r, fetching := OpenReranker(context.Background(), o); r != nil || fetching != nil {
		t.Fatal("models off still opened or fetched a reranker")
	}
	if entries, _ := os.ReadDir(o.Dir); len(entries) != 0 || h.requests() != 0 {
		t.Errorf("wrote %d entries, asked the hub %d times", len(entries), h.requests())
	}
}

// TestHubDownNothingWaits: with the hub down the start is immediate, and
// the background fetch keeps trying until its context ends.
func TestHubDownNothingWaits(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	o := testOptions(t, srv.URL, nil, io.Discard)
	ctx, cancel := context.WithCancel(context.Background())
	start := time.Now()
	emb, fetching := OpenEmbedder(ctx, o, localembed.NewGloveEmbedder(256))
	if d := time.Since(start); d > 100*time.Millisecond || !strings.HasPrefix(emb.Model(), "hash-glove") {
		t.Fatalf("start took %s with %s", d, emb.Model())
	}
	time.Sleep(100 * time.Millisecond)
	cancel()
	if err := wait(t, fetching); err == nil {
		t.Fatal("a fetch from a hub that is down succeeded")
	}
}

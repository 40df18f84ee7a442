package retrieval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
	"github.com/openhuman-go/openhuman-go/services/memory/retrieval"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// qualitySet is services/memory/testdata/quality.json: items, and questions
// naming the keys of the items that answer them.
type qualitySet struct {
	Items []struct {
		Key, Kind, Text, Source, Repo, Language, Workspace string
		LearningKind                                       string `json:"learning_kind"`
		FilePath                                           string `json:"file_path"`
		ThreadID                                           string `json:"thread_id"`
	} `json:"items"`
	Questions []struct {
		Q      string         `json:"q"`
		Answer []string       `json:"a"`
		Filter *memory.Filter `json:"filter"`
		None   bool           `json:"none"`
	} `json:"questions"`
}

// mustQualityStore stores the set's items, with vectors of emb, in a
// SQLite store of the test's own; keyOf maps their seqs to the set's keys.
func mustQualityStore(t *testing.T, emb memory.Embedder) (*sqlite.Store, qualitySet, map[int64]string) {
	t.Helper()
	raw, err := os.ReadFile("../testdata/quality.json")
	if err != nil {
		t.Fatal(err)
	}
	var set qualitySet
	if err := json.Unmarshal(raw, &set); err != nil {
		t.Fatal(err)
	}
	st := sqlite.New(filepath.Join(t.TempDir(), "memory.db"))
	if err := st.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	items := make([]memory.Item, len(set.Items))
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	for i, it := range set.Items {
		source := it.Source
		if source == "" {
			source = "agent"
		}
		items[i] = memory.Item{Kind: it.Kind, LearningKind: it.LearningKind, Text: it.Text, Source: source, Provenance: "mcp:quality",
			Meta:       memory.Meta{Repo: it.Repo, FilePath: it.FilePath, Language: it.Language, Workspace: it.Workspace, ThreadID: it.ThreadID},
			ObservedAt: at.Add(time.Duration(i) * time.Second), CreatedAt: at.Add(time.Duration(i) * time.Second), TokenCount: len(it.Text) / 4}
		items[i].ID = memory.Fingerprint(items[i])
	}
	if _, err := st.Put(ctx, items); err != nil {
		t.Fatal(err)
	}
	stored, err := st.List(ctx, nil, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	keyOf := map[int64]string{}
	for _, it := range stored {
		for i := range items {
			if items[i].ID == it.ID {
				keyOf[it.Seq] = set.Items[i].Key
			}
		}
	}
	for {
		todo, err := st.Unembedded(ctx, emb.Model(), 0, 256)
		if err != nil || len(todo) == 0 {
			if err != nil {
				t.Fatal(err)
			}
			break
		}
		texts := make([]string, len(todo))
		for i, it := range todo {
			texts[i] = it.Text
		}
		vecs, err := emb.Embed(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]memory.Embedded, len(todo))
		for i, it := range todo {
			out[i] = memory.Embedded{Seq: it.Seq, Vector: vecs[i]}
		}
		if err := st.PutVectors(ctx, emb.Model(), out); err != nil {
			t.Fatal(err)
		}
	}
	return st, set, keyOf
}

// The default ranking (hybrid) must be at least as good as each leg alone,
// in recall@5 and in MRR, on the hand-written set, and each leg good on
// its own: a leg that returned noise, or fusion that let one drown the
// other, shows here.
func TestDefaultIsAtLeastAsGoodAsEachLeg(t *testing.T) {
	emb := localembed.NewGloveEmbedder(0)
	st, set, keyOf := mustQualityStore(t, emb)
	ctx := context.Background()
	engine := retrieval.New(st, emb, nil)
	m, err := st.Marks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type score struct {
		hits, n int
		rr      float64
	}
	modes := []string{retrieval.ModeHybrid, retrieval.ModeKeyword, retrieval.ModeVector}
	scores := map[string]*score{}
	for _, mode := range modes {
		sc := &score{}
		scores[mode] = sc
		for _, q := range set.Questions {
			if q.None {
				continue
			}
			var allowed []int64
			if q.Filter != nil {
				if allowed, err = st.Matching(ctx, q.Filter, m.Items); err != nil {
					t.Fatal(err)
				}
				if allowed == nil {
					allowed = []int64{}
				}
			}
			ranked, _, err := engine.Rank(ctx, retrieval.Query{Text: q.Q, Mode: mode, Marks: m, AsOf: m.Items, Allowed: allowed, Depth: 200, Need: 5})
			if err != nil {
				t.Fatalf("%s %q: %v", mode, q.Q, err)
			}
			sc.n++
			for i, c := range ranked {
				if right(q.Answer, keyOf[c.Seq]) {
					sc.hits++
					sc.rr += 1 / float64(i+1)
					break
				}
			}
		}
	}
	var b strings.Builder
	fmt.Fprintln(&b, "| mode | recall@5 | MRR |\n| --- | ---: | ---: |")
	for _, mode := range modes {
		sc := scores[mode]
		fmt.Fprintf(&b, "| %s | %.3f | %.3f |\n", mode, float64(sc.hits)/float64(sc.n), sc.rr/float64(sc.n))
	}
	t.Log("\n" + b.String())
	hy := scores[retrieval.ModeHybrid]
	for _, leg := range modes[1:] {
		if l := scores[leg]; hy.hits < l.hits || hy.rr < l.rr {
			t.Errorf("the default (recall %d, MRR %.3f) is worse than the %s leg alone (recall %d, MRR %.3f)",
				hy.hits, hy.rr/float64(hy.n), leg, l.hits, l.rr/float64(l.n))
		}
	}
	// The default's rerank makes up for a weak leg, so each leg must
	// also hold up alone: a vector leg ranking at random gets about 0.15
	// here (and leaves the default no better than keyword).
	const legFloor = 0.9
	for _, mode := range modes {
		if sc := scores[mode]; float64(sc.hits)/float64(sc.n) < legFloor {
			t.Errorf("%s finds the answer in its first 5 for %d of %d questions, below %.0f%%", mode, sc.hits, sc.n, 100*legFloor)
		}
	}
}

func right(keys []string, key string) bool {
	for _, k := range keys {
		if k == key {
			return true
		}
	}
	return false
}

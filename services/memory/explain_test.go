package memory_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// A hit's explanation adds up to its score in every mode, for the hits
// the rerank weighed and for those below them.
func TestExplainAddsUpToTheScore(t *testing.T) {
	svc := mustOpenService(t)
	for _, n := range newcomerNotes {
		learn(t, svc, n)
	}
	// More notes holding a word of the query than the rerank weighs.
	for i := range 40 {
		learn(t, svc, fmt.Sprintf("Coffee note %d: the beans came from batch %d.", i, i*7))
	}
	global := 0
	for _, mode := range memory.Modes {
		res, err := svc.Fetch(context.Background(), memory.FetchParams{Query: "Which database do I use for coffee?", Mode: mode, Explain: true, Limit: 50, MinScore: new(float64)}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 {
			t.Fatalf("%s: no hits", mode)
		}
		for _, h := range res.Hits {
			if h.Explain == nil || len(h.Explain.Features) == 0 {
				t.Fatalf("%s: hit %s has no explanation", mode, h.ID)
			}
			if h.Explain.Features[0].Phase == "global" {
				global++
			}
			sum := 0.0
			for _, f := range h.Explain.Features {
				sum += f.Value * f.Weight
			}
			if math.Abs(sum-*h.Score) > 1e-9 {
				t.Errorf("%s: hit %q scored %v, its features add up to %v: %+v", mode, h.Text, *h.Score, sum, h.Explain.Features)
			}
		}
	}
	if global == 0 {
		t.Error("no hit below the reranked ones was explained")
	}
	res, err := svc.Fetch(context.Background(), memory.FetchParams{Query: "coffee"}, anyone)
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Explain != nil {
		t.Fatalf("an explanation not asked for: %v %+v", err, res)
	}
}

// scoreByWord is a cross-encoder that finds a passage relevant when it
// holds word: ranking's use of one, not a model's quality, is tested here
// (services/memory/minilm tests the model).
type scoreByWord string

func (w scoreByWord) Rerank(_ context.Context, _ string, passages []string) ([]float64, error) {
	out := make([]float64, len(passages))
	for i, p := range passages {
		out[i] = -8
		if strings.Contains(p, string(w)) {
			out[i] = 8
		}
	}
	return out, nil
}

// A cross-encoder reorders the candidates the rerank weighs, and explain
// shows what it added.
func TestACrossEncoderReordersTheCandidates(t *testing.T) {
	hits := func(reranker memory.Reranker) []memory.Hit {
		st := sqlite.New(filepath.Join(t.TempDir(), "memory.db"))
		if err := st.Open(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		svc := memory.NewService(st, &memory.Options{Embedder: localembed.NewGloveEmbedder(0), Reranker: reranker})
		for _, n := range newcomerNotes {
			learn(t, svc, n)
		}
		res, err := svc.Fetch(context.Background(), memory.FetchParams{Query: "coffee or home?", Explain: true}, anyone)
		if err != nil || len(res.Hits) < 2 {
			t.Fatalf("%v %+v", err, res)
		}
		return res.Hits
	}
	// The cross-encoder finds relevant the note that comes second without it.
	second := hits(nil)[1].Text
	h := hits(scoreByWord(second))[0]
	if h.Text != second {
		t.Errorf("first hit %q, want %q, the note the cross-encoder finds relevant", h.Text, second)
	}
	found := false
	for _, f := range h.Explain.Features {
		found = found || f.Name == "cross_encoder" && f.Value > 0.99
	}
	if !found {
		t.Errorf("explain shows no cross-encoder: %+v", h.Explain)
	}
}

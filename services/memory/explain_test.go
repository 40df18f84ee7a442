package memory_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory"
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

package memory_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// A note learned as a correction is lifted by its coverage
// (FeatureCorrection, more where the question asks what holds now), and
// explain says what it gained; the note it corrects gains nothing.
func TestACorrectionIsLiftedByItsCoverage(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	learn(t, svc, "The team standup is at 9:30 on weekdays.")
	if _, err := svc.Learn(ctx, memory.LearnParams{Text: "The team standup is at 10:00 on weekdays.", Kind: "correction"}, anyone); err != nil {
		t.Fatal(err)
	}
	res, err := svc.Fetch(ctx, memory.FetchParams{Query: "When is the team standup now?", Explain: true}, anyone)
	if err != nil || len(res.Hits) < 2 {
		t.Fatalf("%v %+v", err, res)
	}
	if !strings.Contains(res.Hits[0].Text, "10:00") {
		t.Fatalf("first hit %q, want the correction", res.Hits[0].Text)
	}
	// Both hold the question alike; only the lift parts them.
	if !(*res.Hits[0].Score > *res.Hits[1].Score) {
		t.Errorf("scores %v and %v, want the correction's higher", *res.Hits[0].Score, *res.Hits[1].Score)
	}
	var gained float64
	for _, f := range res.Hits[0].Explain.Features {
		if f.Name == "correction" || f.Name == "correction_now" {
			gained += f.Value * f.Weight
		}
	}
	if gained <= 0 {
		t.Errorf("explain shows no correction: %+v", res.Hits[0].Explain)
	}
	for _, f := range res.Hits[1].Explain.Features {
		if strings.HasPrefix(f.Name, "correction") {
			t.Errorf("the note corrected gained %s: %+v", f.Name, res.Hits[1].Explain)
		}
	}
}

package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// A caller limited to a workspace reading a memory that holds nothing yet
// (a fresh install, an OAuth grant's first call) gets an empty answer, and
// memory keeps serving it and everyone else afterwards.
func TestScopedReadsOfAnEmptyMemory(t *testing.T) {
	svc := mustOpenService(t)
	home := limitedTo("home")
	for i := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		res, err := svc.Fetch(ctx, memory.FetchParams{Query: "where do I live?"}, home)
		if err != nil || len(res.Hits) != 0 {
			t.Fatalf("fetch %d: %+v %v", i, res, err)
		}
		if _, err := svc.Recall(ctx, memory.RecallParams{Question: "where do I live?"}, home); err != nil {
			t.Fatalf("recall %d: %v", i, err)
		}
		cancel()
	}
	learn(t, svc, "I live in Porto.")
	if _, err := svc.Learn(context.Background(), memory.LearnParams{Text: "My home is in Lisbon.", Workspace: "home"}, anyone); err != nil {
		t.Fatal(err)
	}
	res, err := svc.Fetch(context.Background(), memory.FetchParams{Query: "where is my home?"}, home)
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Text != "My home is in Lisbon." {
		t.Fatalf("after learning, the scoped fetch got %+v %v", res, err)
	}
}

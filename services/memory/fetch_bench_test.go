package memory_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// BenchmarkFetch measures hybrid memory.fetch as one caller meets it, in a
// memory of 3,000 notes (the default embedder), for a query whose words
// the notes hold, one whose words no note holds, and, in a memory of one
// note, one that matches nothing there: what a fetch costs beside the
// work of ranking what matched.
func BenchmarkFetch(b *testing.B) {
	ctx := context.Background()
	notes := func(n int) *memory.Service {
		svc := mustOpenService(b)
		c := newCorpus(1)
		items := make([]memory.Item, n)
		for i := range items {
			items[i] = memory.Item{Kind: "learning", LearningKind: "fact", Source: "agent", Provenance: "mcp:bench",
				Text: fmt.Sprintf("Note %d: %s.", i, c.words(12+i%14))}
		}
		if _, err := svc.Remember(ctx, items); err != nil {
			b.Fatal(err)
		}
		// The indexes are built before the first fetch, as Run does.
		if _, err := svc.Fetch(ctx, memory.FetchParams{Query: "warm up"}, anyone); err != nil {
			b.Fatal(err)
		}
		return svc
	}
	q := newCorpus(2)
	queries := make([]string, 64)
	for i := range queries {
		queries[i] = q.words(2 + i%2)
	}
	many, one := notes(3000), notes(1)
	for _, bc := range []struct {
		name  string
		svc   *memory.Service
		query func(i int) string
	}{
		{"3000/matching", many, func(i int) string { return queries[i%len(queries)] }},
		{"3000/nothing", many, func(int) string { return "zzyzx qwxv" }},
		{"1/nothing", one, func(int) string { return "zzyzx qwxv" }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, err := bc.svc.Fetch(ctx, memory.FetchParams{Query: bc.query(i), Limit: 10}, anyone); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

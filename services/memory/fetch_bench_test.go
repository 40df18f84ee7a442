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
// work of ranking what matched; and 3,000/alike, the notes and query of
// scripts/stdio-bench.sh.
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
	alike := mustOpenService(b)
	if _, err := alike.Remember(ctx, alikeNotes(3000)); err != nil {
		b.Fatal(err)
	}
	if _, err := alike.Fetch(ctx, memory.FetchParams{Query: "warm up"}, anyone); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		svc   *memory.Service
		query func(i int) string
	}{
		{"3000/matching", many, func(i int) string { return queries[i%len(queries)] }},
		{"3000/nothing", many, func(int) string { return "zzyzx qwxv" }},
		{"1/nothing", one, func(int) string { return "zzyzx qwxv" }},
		{"3000/alike", alike, func(int) string { return "deploy decision for team 150" }},
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

// alikeNotes are the notes scripts/stdio-bench.sh learns: made alike, each
// holding most of the query's words, so that the keyword leg scores nearly
// every note and the legs' selections meet long runs of ties.
func alikeNotes(n int) []memory.Item {
	topics := []string{"deploy", "billing", "postgres", "editor", "release", "standup", "kubernetes", "invoice", "holiday", "design"}
	people := []string{"Ana", "Bo", "Chen", "Dara", "Eli", "Farah", "Gus", "Hana", "Ivo", "Jun", "Kemal", "Lea"}
	teams := max(1, n/10)
	items := make([]memory.Item, n)
	for i := range items {
		items[i] = memory.Item{Kind: "learning", LearningKind: "fact", Source: "agent", Provenance: "mcp:bench",
			Text: fmt.Sprintf("Note %d: the %s decision for team %d was recorded after the %s review with %s on day %d.",
				i, topics[i%len(topics)], i%teams, topics[i/10%len(topics)], people[i%len(people)], i%28+1)}
	}
	return items
}

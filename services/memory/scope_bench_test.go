package memory_test

import (
	"context"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// BenchmarkFetchScope measures hybrid memory.fetch over 10k items split
// between two workspaces, for a caller limited to none of them and for one
// limited to one: what the scope costs a fetch.
func BenchmarkFetchScope(b *testing.B) {
	svc := mustOpenService(b)
	ctx := context.Background()
	c := newCorpus(1)
	const n, batch = 10_000, 1000
	for i := 0; i < n; i += batch {
		items := make([]memory.Item, 0, batch)
		for j := i; j < i+batch; j++ {
			it := c.item(j)
			it.Meta.Workspace = []string{"a", "b"}[j%2]
			items = append(items, it)
		}
		if _, err := svc.Remember(ctx, items); err != nil {
			b.Fatal(err)
		}
	}
	q := newCorpus(2)
	queries := make([]string, 64)
	for i := range queries {
		queries[i] = q.words(2 + i%2)
	}
	for _, bc := range []struct {
		name string
		cc   contract.CallContext
	}{{"unscoped", anyone}, {"scoped", contract.CallContext{Workspaces: []string{"a"}}}} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, err := svc.Fetch(ctx, memory.FetchParams{Query: queries[i%len(queries)], Limit: 10}, bc.cc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

func TestTreeViews(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	_, err := svc.Remember(ctx, []memory.Item{
		{Kind: "document", Source: "file", SourceID: "/repo/a.md", Text: "Ask @lena about the Orbit rollout.", Provenance: "cli", ObservedAt: t0},
		{Kind: "document", Source: "file", SourceID: "/repo/a.md", Text: "Orbit uses NATS JetStream.", Provenance: "cli", ObservedAt: t0.Add(time.Hour)},
		{Kind: "conversation", Source: "conversation", SourceID: "thread:t1", Text: "Lena: the Orbit demo is on Friday #demo", Provenance: "cli", ObservedAt: t0.Add(2 * time.Hour)},
	})
	if err != nil {
		t.Fatal(err)
	}
	learn(t, svc, "Orbit is the codename of the new API.")

	all, err := svc.Browse(ctx, memory.BrowseParams{K: 10}, anyone)
	if err != nil || all.Total != 4 || all.Chunks[0].SourceKind != "client" || all.Chunks[0].SourceID != "mcp:cursor" {
		t.Fatalf("browse all: %+v %v", all, err)
	}
	for name, tc := range map[string]struct {
		p    memory.BrowseParams
		want int
	}{
		"source kind":       {memory.BrowseParams{SourceKinds: []string{"file"}}, 2},
		"source id":         {memory.BrowseParams{SourceIDs: []string{"thread:t1", "mcp:cursor"}}, 2},
		"entity":            {memory.BrowseParams{EntityIDs: []string{"term:orbit"}}, 4},
		"entity, any case":  {memory.BrowseParams{EntityIDs: []string{"Handle:Lena"}}, 1},
		"since":             {memory.BrowseParams{SinceMS: t0.Add(30 * time.Minute).UnixMilli(), UntilMS: t0.Add(3 * time.Hour).UnixMilli()}, 2},
		"words":             {memory.BrowseParams{Query: "jetstream demo"}, 2},
		"only stopwords":    {memory.BrowseParams{Query: "the of"}, 0},
		"offset past total": {memory.BrowseParams{Offset: 10}, 4},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := svc.Browse(ctx, tc.p, anyone)
			if err != nil || got.Total != tc.want {
				t.Errorf("total %d, want %d (%v)", got.Total, tc.want, err)
			}
		})
	}
	ents, _ := svc.TopEntities(ctx, memory.TopEntitiesParams{K: 3}, anyone)
	if len(ents.Entities) == 0 || ents.Entities[0].ID != "term:orbit" || ents.Entities[0].Count != 4 {
		t.Errorf("top entities %+v", ents)
	}
	if tags, _ := svc.TopEntities(ctx, memory.TopEntitiesParams{Kind: "hashtag"}, anyone); len(tags.Entities) != 1 || tags.Entities[0].Surface != "demo" {
		t.Errorf("hashtags %+v", tags)
	}
	srcs, _ := svc.ListSources(ctx, memory.ListSourcesParams{}, anyone)
	if len(srcs.Sources) != 3 {
		t.Errorf("sources %+v", srcs)
	}
	if _, err := svc.ReadChunk(ctx, memory.ReadChunkParams{ChunkID: "nope"}, anyone); contract.ErrorCode(err) != contract.CodeNotFound {
		t.Errorf("read missing chunk: %v", err)
	}
	// Forgetting an item removes its entities too.
	if _, err := svc.Forget(ctx, memory.ForgetParams{IDs: []string{all.Chunks[0].ID}}, anyone); err != nil {
		t.Fatal(err)
	}
	if ents, _ := svc.TopEntities(ctx, memory.TopEntitiesParams{K: 1}, anyone); ents.Entities[0].Count != 3 {
		t.Errorf("after forget: %+v", ents)
	}
}

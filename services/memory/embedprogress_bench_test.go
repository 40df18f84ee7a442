package memory_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite/sqlitetest"
)

// BenchmarkEmbeddingProgress is what /readyz and each scrape of /metrics
// pay for the backlog's count in a memory of 100,000 items: caught up
// (every item has a vector, just after a restart), and re-embedding
// (none has one of the new model: the count reads every item).
func BenchmarkEmbeddingProgress(b *testing.B) {
	path := filepath.Join(b.TempDir(), "m.db")
	sqlitetest.WriteItems(b, path, 100_000)
	st := mustOpenStoreAt(b, path)
	ctx := context.Background()
	for name, emb := range map[string]memory.Embedder{"caught-up": nil, "re-embedding": &remoteEmbedder{model: "next"}} {
		b.Run(name, func(b *testing.B) {
			svc := memory.NewService(st, &memory.Options{Embedder: emb})
			if name == "caught-up" {
				svc.EmbedNew(ctx)
				if p := svc.EmbeddingProgress(ctx); p.Pending != 0 {
					b.Fatalf("%d items wait", p.Pending)
				}
			}
			for b.Loop() {
				svc.EmbeddingProgress(ctx)
			}
		})
	}
}

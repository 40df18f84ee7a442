package memory_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// The progress says what waits for a vector and why: with the embedder
// down the backlog, the failures, the error and the backoff; once it is
// back, nothing waits; under a new model, everything waits again.
func TestEmbeddingProgress(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	st := mustOpenStoreAt(t, path)
	emb := &remoteEmbedder{model: "remote-a"}
	emb.down.Store(true)
	svc := memory.NewService(st, &memory.Options{Embedder: emb, InlineTimeout: 50 * time.Millisecond})
	ctx := context.Background()
	for _, text := range []string{"The backup job runs at 02:00 UTC.", "Ada prefers tea.", "The VPN needs a token."} {
		if _, err := svc.Learn(ctx, memory.LearnParams{Text: text}, cursor); err != nil {
			t.Fatal(err)
		}
	}
	if p := svc.EmbeddingProgress(ctx); p.Pending != 3 || p.Failures != 0 || p.Model != "remote-a" {
		t.Fatalf("before the worker ran: %+v", p)
	}
	runInBackground(t, svc)
	waitUntil(t, "the worker's failure shows", func() bool { return svc.EmbeddingProgress(ctx).Failures > 0 })
	p := svc.EmbeddingProgress(ctx)
	if p.Pending != 3 || !strings.Contains(p.LastError, "refused the connection") || p.BackoffSeconds < 1 ||
		p.RetryAt == "" || p.LastErrorAt == "" || !strings.Contains(p.Detail, "3 items wait for a vector of remote-a") ||
		!strings.Contains(p.Detail, "failed") {
		t.Fatalf("with the embedder down: %+v", p)
	}
	emb.down.Store(false)
	waitUntil(t, "the backlog is embedded", func() bool {
		p := svc.EmbeddingProgress(ctx)
		return p.Pending == 0 && p.Failures == 0
	})
	p = svc.EmbeddingProgress(ctx)
	if p.BackoffSeconds != 0 || p.RetryAt != "" || p.Detail != "every item has a vector of remote-a" || p.LastError == "" {
		t.Fatalf("once the embedder is back: %+v", p)
	}
	next := memory.NewService(st, &memory.Options{Embedder: &remoteEmbedder{model: "remote-b"}})
	if p := next.EmbeddingProgress(ctx); p.Pending != 3 || p.Model != "remote-b" || !strings.Contains(p.Detail, "being embedded") {
		t.Fatalf("under a new model: %+v", p)
	}
	if p := memory.Off("disabled").EmbeddingProgress(ctx); p != nil {
		t.Fatalf("memory off: %+v", p)
	}
}

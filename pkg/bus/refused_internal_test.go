package bus

import (
	"context"
	"testing"

	"github.com/nats-io/nats.go"
)

// BenchmarkWatchRefusal is what watching for a refused publish adds to
// every call: registering, and unregistering when the call ends.
func BenchmarkWatchRefusal(b *testing.B) {
	nc := &nats.Conn{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, unwatch := watchRefusal(ctx, nc, "openhuman.memory.fetch")
			unwatch()
		}
	})
}

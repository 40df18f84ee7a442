package bus_test

import (
	"context"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// benchClient is a client of the echo service, on a server of its own.
func benchClient(b *testing.B) *bus.Client {
	s := mustStartServer(b)
	release := make(chan struct{})
	b.Cleanup(func() { close(release) })
	echoService(b, mustConnect(b, s), release)
	return bus.NewClient(mustConnect(b, s), bustest.Keys().GatewaySigner())
}

// BenchmarkCall is one round trip to a handler that answers at once: what
// the bus itself costs a call, with no work behind it.
func BenchmarkCall(b *testing.B) {
	c := benchClient(b)
	ctx := context.Background()
	cc := contract.CallContext{Source: "bench"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Call(ctx, "echo", "echo", map[string]int{"a": 1}, cc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallParallel keeps many calls in flight at once, as a gateway
// serving several clients does: the bus's cost per call under load.
func BenchmarkCallParallel(b *testing.B) {
	c := benchClient(b)
	cc := contract.CallContext{Source: "bench"}
	b.ReportAllocs()
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Call(context.Background(), "echo", "echo", map[string]int{"a": 1}, cc); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

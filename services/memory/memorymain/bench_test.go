package memorymain

import (
	"context"
	"fmt"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// BenchmarkLearn measures memory.learn's throughput with replication off
// (one store, written directly) and on (appended to the stream, acknowledged,
// applied by this replica and by a second one following the stream).
func BenchmarkLearn(b *testing.B) {
	ns := mustJetStream(b)
	run := func(b *testing.B, s *server) {
		ctx := context.Background()
		i := 0
		for b.Loop() {
			i++
			if _, err := s.domain.Learn(ctx, memory.LearnParams{Text: fmt.Sprintf("Benchmark fact %d: host %d restarts nightly.", i, i%13)},
				contract.CallContext{Source: "cli"}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("off", func(b *testing.B) {
		cfg, err := config.Load(b.TempDir(), func(string) string { return "" })
		if err != nil {
			b.Fatal(err)
		}
		cfg.NATS.URL, cfg.Bus = ns.ClientURL(), bustest.Keys().Service()
		run(b, startReplica(b, cfg))
	})
	b.Run("jetstream", func(b *testing.B) {
		a := startReplica(b, replConfig(b, ns.ClientURL(), b.TempDir(), 1))
		startReplica(b, replConfig(b, ns.ClientURL(), b.TempDir(), 1))
		run(b, a)
	})
}

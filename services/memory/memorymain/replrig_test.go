package memorymain

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	js "github.com/nats-io/nats.go/jetstream"

	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/jetstream"
)

// mustJetStream starts a real NATS server with JetStream on a random port.
func mustJetStream(tb testing.TB) *embedded.Server {
	tb.Helper()
	ns, err := embedded.Start(embedded.Options{Port: -1, JetStream: true, StoreDir: tb.TempDir(), MaxPayload: 8 << 20})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(ns.Shutdown)
	return ns
}

// testIDKey is the replicas' memory.id_key in tests.
const testIDKey = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

// replConfig is a replicated memory's configuration in home.
func replConfig(tb testing.TB, url, home string, replicas int) config.Config {
	tb.Helper()
	env := map[string]string{"OPENHUMAN_NATS_URL": url, "OPENHUMAN_MEMORY_REPLICATED": "true",
		"OPENHUMAN_MEMORY_STREAM_REPLICAS": fmt.Sprint(replicas), "OPENHUMAN_MEMORY_ID_KEY": testIDKey,
		"OPENHUMAN_MODELS": "off"}
	cfg, err := config.Load(home, func(k string) string { return env[k] })
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Bus = bustest.Keys().Service()
	return cfg
}

// startReplica runs a memory replica in home, as openhuman-memory does.
func startReplica(tb testing.TB, cfg config.Config) *server {
	tb.Helper()
	log := slog.New(slog.DiscardHandler)
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	nc, err := nats.Connect(cfg.NATS.URL)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := Start(nc, cfg, log)
	if err != nil {
		nc.Close()
		tb.Fatal(err)
	}
	s := c.(*server)
	closed := false
	tb.Cleanup(func() {
		if !closed {
			s.Close()
		}
		nc.Close()
	})
	return s
}

func stopReplica(tb testing.TB, s *server) {
	tb.Helper()
	if err := s.Close(); err != nil {
		tb.Fatal(err)
	}
}

func learn(tb testing.TB, s *server, text string) *memory.LearnResult {
	tb.Helper()
	res, err := s.current().Learn(context.Background(), memory.LearnParams{Text: text}, contract.CallContext{Source: "mcp:test"})
	if err != nil {
		tb.Fatalf("learn %q: %v", text, err)
	}
	return res
}

// contents is every item of a store as id → text, for comparing stores.
func contents(tb testing.TB, s *server) []string {
	tb.Helper()
	items, err := s.store.List(context.Background(), nil, 0, 1<<20)
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID + " " + it.Text
	}
	sort.Strings(out)
	return out
}

// appliedEvents is how many events s's follower applied, once it counted
// the last one it applied (the count follows the applied mark).
func appliedEvents(s *server, want int64) int64 {
	for range 100 {
		if n := s.repl.follower.AppliedEvents(); n >= want {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
	return s.repl.follower.AppliedEvents()
}

// caughtUp waits until s has applied seq.
func caughtUp(tb testing.TB, s *server, seq uint64) {
	tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for s.repl.store.Applied() < seq {
		if time.Now().After(deadline) {
			tb.Fatalf("replica %s applied %d of %d after 20 s", s.repl.name, s.repl.store.Applied(), seq)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func lastSeq(tb testing.TB, url string) uint64 {
	tb.Helper()
	stream := mustStream(tb, url)
	info, err := stream.Info(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return info.State.LastSeq
}

func mustStream(tb testing.TB, url string) js.Stream {
	tb.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(nc.Close)
	j, err := js.New(nc)
	if err != nil {
		tb.Fatal(err)
	}
	stream, err := j.Stream(context.Background(), jetstream.Stream)
	if err != nil {
		tb.Fatal(err)
	}
	return stream
}

package embedded_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	busembedded "github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/memorymain"
)

// A forget repeated does change something: sent again after the caller
// learned the same note again (the same learning is the same item), it
// forgets it a second time. So a memory replica run on its own keeps the
// nonces of the calls it took across restarts (in its home without Redis,
// shared with the other replicas in Redis with it): a captured forget sent
// again after memory restarted is refused.
func TestReplayedForgetAfterRestart(t *testing.T) {
	srv, err := busembedded.Start(busembedded.Options{Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	dial := func(name string) *nats.Conn {
		nc, err := srv.Connect(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		return nc
	}
	cfg, err := config.Load(t.TempDir(), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	// As openhuman-memory runs: on a NATS server of its own.
	cfg.NATS.URL, cfg.Bus = srv.ClientURL(), bustest.Keys().Service()
	start := func() io.Closer {
		c, err := memorymain.Start(dial("memory"), cfg, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	mem := start()
	gw := bus.NewClient(dial("gateway"), bustest.Keys().GatewaySigner())
	intruder := dial("intruder")
	captured := make(chan *nats.Msg, 1)
	if _, err := intruder.ChanSubscribe(contract.MemoryForget.Subject(), captured); err != nil {
		t.Fatal(err)
	}
	if err := intruder.Flush(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cc := contract.CallContext{Source: "mcp:test"}
	learn := func() string {
		raw, err := gw.CallTool(ctx, contract.MemoryLearn, json.RawMessage(`{"text":"The spare key is under the blue pot."}`), cc)
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ ID string }
		if json.Unmarshal(raw, &r) != nil || r.ID == "" {
			t.Fatalf("learn answered %s", raw)
		}
		return r.ID
	}
	id := learn()
	args, _ := json.Marshal(map[string]any{"ids": []string{id}})
	if _, err := gw.CallTool(ctx, contract.MemoryForget, args, cc); err != nil {
		t.Fatal(err)
	}
	msg := <-captured
	if err := mem.Close(); err != nil {
		t.Fatal(err)
	}
	start()
	if again := learn(); again != id {
		t.Fatalf("learned again as %s, not %s", again, id)
	}
	r := rawCall(t, intruder, msg.Subject, msg.Data, msg.Header, msg.Reply)
	if r.Error == nil {
		t.Errorf("a captured forget sent again after memory restarted was taken: %s", r.Result)
	}
}

package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/transfer"
)

// The gateway keeps the newest seq of the memory write replies it
// forwarded and sends it as min_seq with every memory read, whatever the
// transport: here a replicated memory is stood in for by responders on a
// real NATS server that answer writes with a growing seq and record the
// min_seq of each read.
func TestGatewaySetsMinSeqFromWriteReplies(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	nc, err := ns.Connect("memory", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	var mu sync.Mutex
	seq := uint64(40)
	var reads []uint64
	reply := func(m *nats.Msg, result any) {
		body, _ := json.Marshal(map[string]any{"result": result})
		_ = bustest.Respond(m, body)
	}
	write := func(m *nats.Msg) {
		mu.Lock()
		seq += 7
		n := seq
		mu.Unlock()
		reply(m, map[string]any{"id": "x", "replayed": false, "forgotten": 0, "not_found": []string{}, "files": []any{}, "seq": n})
	}
	read := func(m *nats.Msg) {
		var req contract.Request
		_ = json.Unmarshal(m.Data, &req)
		mu.Lock()
		reads = append(reads, req.Ctx.MinSeq)
		mu.Unlock()
		reply(m, map[string]any{"items": []any{}})
	}
	for subject, h := range map[string]nats.MsgHandler{
		contract.MemoryLearn.Subject(): write, contract.MemoryForget.Subject(): write,
		contract.IngestEndpoint.Subject(): write, contract.ConversationEndpoint.Subject(): write,
		contract.MemoryList.Subject(): read,
	} {
		if _, err := nc.Subscribe(subject, h); err != nil {
			t.Fatal(err)
		}
	}
	// The server has the subscriptions before the gateway's first call.
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	cn, err := ns.Connect("gateway", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cn.Close)
	gw := gateway.New(bus.NewClient(cn, bustest.Keys().GatewaySigner()), gateway.Options{})
	ctx := context.Background()
	cc := contract.CallContext{Source: "mcp:test", Transport: "mcp_stdio"}
	list := func() {
		t.Helper()
		if _, err := gw.CallTool(ctx, "memory.list", json.RawMessage(`{}`), cc); err != nil {
			t.Fatal(err)
		}
	}
	list() // before any write: nothing to wait for
	if _, err := gw.CallTool(ctx, "memory.learn", json.RawMessage(`{"text":"a"}`), cc); err != nil {
		t.Fatal(err)
	}
	list()
	if _, err := transfer.Ingest(ctx, gw, []map[string]any{{"source_id": "a.md", "content": "x"}}, cc); err != nil {
		t.Fatal(err)
	}
	list()
	if _, err := transfer.IngestConversation(ctx, gw, []map[string]any{{"thread_id": "t", "text": "hi"}}, cc); err != nil {
		t.Fatal(err)
	}
	if _, err := gw.CallTool(ctx, "memory.forget", json.RawMessage(`{"ids":["x"]}`), cc); err != nil {
		t.Fatal(err)
	}
	// A caller's own higher min_seq stands.
	if _, err := gw.CallTool(ctx, "memory.list", json.RawMessage(`{}`), contract.CallContext{Source: "rpc", MinSeq: 1000}); err != nil {
		t.Fatal(err)
	}
	list()
	mu.Lock()
	defer mu.Unlock()
	if got, want := fmt.Sprint(reads), "[0 47 54 1000 68]"; got != want {
		t.Fatalf("min_seq of the reads = %s, want %s", got, want)
	}
}

package natsbus_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
	"github.com/openhuman-go/openhuman-go/services/memory/natsbus"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// rig is the memory service over a real SQLite file in a temporary
// directory, served on a real embedded NATS server, and a client of it.
type rig struct {
	svc    *memory.Service
	client *bus.Client
}

func mustServe(tb testing.TB, opts *memory.Options) *rig {
	tb.Helper()
	ns, err := embedded.Start(embedded.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(ns.Shutdown)
	st := sqlite.New(filepath.Join(tb.TempDir(), "memory.db"))
	if err := st.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	log := slog.New(slog.DiscardHandler)
	if opts == nil {
		opts = &memory.Options{}
	}
	if opts.Embedder == nil {
		opts.Embedder = localembed.NewGloveEmbedder(0)
	}
	svc := memory.NewService(st, opts)
	nc, err := ns.Connect("memory", log)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(nc.Close)
	served, err := natsbus.Serve(nc, svc, "0.0.0", bustest.Keys().Checks(), log)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { served.Stop() })
	cn, err := ns.Connect("client", log)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(cn.Close)
	return &rig{svc: svc, client: bus.NewClient(cn, bustest.Keys().GatewaySigner())}
}

// call sends one request over the bus, as the gateway or any other client
// of NATS would, and decodes its result.
func (r *rig) call(tb testing.TB, def contract.Endpoint, args any, cc contract.CallContext) (map[string]any, error) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	raw, err := r.client.Call(ctx, contract.ServiceMemory, def.Method, args, cc)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		tb.Fatalf("%s answered %s: %v", def.Method, raw, err)
	}
	return out, nil
}

func (r *rig) must(tb testing.TB, def contract.Endpoint, args any, cc contract.CallContext) map[string]any {
	tb.Helper()
	out, err := r.call(tb, def, args, cc)
	if err != nil {
		tb.Fatalf("%s %v: %v", def.Method, args, err)
	}
	return out
}

// list returns the objects under key of a result.
func list(res map[string]any, key string) []map[string]any {
	raw, _ := res[key].([]any)
	out := make([]map[string]any, len(raw))
	for i, v := range raw {
		out[i], _ = v.(map[string]any)
	}
	return out
}

// workspaceOf is the workspace of a hit as memory.fetch and memory.list
// return it.
func workspaceOf(hit map[string]any) string {
	meta, _ := hit["meta"].(map[string]any)
	ws, _ := meta["workspace"].(string)
	return ws
}

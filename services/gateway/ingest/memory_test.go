package ingest

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/memorymain"
)

// memoryBus is a real memory service, with its own SQLite file, on an
// embedded NATS server whose messages are at most maxPayload bytes, and a
// connection to it as the CLI has one.
type memoryBus struct {
	client *bus.Client
	mu     sync.Mutex
	// sent is every file (or part) sent, its content cut to 4 KB: holding
	// it all would hold a large file whole.
	sent  []File
	calls int
}

func mustStartMemory(tb testing.TB, maxPayload int32) *memoryBus {
	tb.Helper()
	srv, err := embedded.Start(embedded.Options{MaxPayload: maxPayload})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(srv.Shutdown)
	cfg, err := config.Load(tb.TempDir(), func(string) string { return "" })
	if err != nil {
		tb.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	snc, err := srv.Connect("openhuman-memory", log)
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Bus = bustest.Keys().Service()
	svc, err := memorymain.Start(snc, cfg, log)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { svc.Close(); snc.Close() })
	nc, err := srv.Connect("openhuman-core", log)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(nc.Close)
	return &memoryBus{client: bus.NewClient(nc, bustest.Keys().GatewaySigner())}
}

// maxRequest is the connection's message limit, as the CLI reads it.
func (m *memoryBus) maxRequest() int { return int(m.client.Conn().MaxPayload()) }

// send is the Sender the CLI uses, noting what it sends.
func (m *memoryBus) send(ctx context.Context, files []json.RawMessage) ([]contract.IngestedFile, error) {
	m.mu.Lock()
	m.calls++
	for _, raw := range files {
		var f File
		if err := json.Unmarshal(raw, &f); err == nil {
			f.Content = strings.Clone(f.Content[:min(len(f.Content), 4<<10)])
			m.sent = append(m.sent, f)
		}
	}
	m.mu.Unlock()
	raw, err := m.client.Call(ctx, contract.ServiceMemory, contract.MethodIngest, map[string]any{"files": files}, contract.CallContext{Source: "cli"})
	if err != nil {
		return nil, err
	}
	var res struct {
		Files []contract.IngestedFile `json:"files"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	return res.Files, nil
}

// chunks lists a source's chunks as tree.browse pages them, oldest first.
func (m *memoryBus) chunks(tb testing.TB, source string) []map[string]any {
	tb.Helper()
	var out []map[string]any
	for off := 0; ; off += 20 {
		raw, err := m.client.Call(context.Background(), contract.ServiceMemory, contract.TreeBrowse.Method,
			map[string]any{"source_ids": []string{source}, "k": 20, "offset": off}, contract.CallContext{})
		if err != nil {
			tb.Fatal(err)
		}
		var page struct {
			Chunks []map[string]any `json:"chunks"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			tb.Fatal(err)
		}
		out = append(out, page.Chunks...)
		if len(page.Chunks) < 20 {
			break
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// ids are the chunks' ids.
func ids(chunks []map[string]any) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i], _ = c["id"].(string)
	}
	return out
}

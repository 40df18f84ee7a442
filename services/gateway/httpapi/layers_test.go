package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/httpapi"
	"github.com/openhuman-go/openhuman-go/services/gateway/mcpserver"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// BenchmarkFetchLayers is memory.fetch at 10k items made at each layer:
// on the memory domain directly, through the gateway and the embedded bus,
// and through HTTP JSON-RPC, one call at a time; the differences are what
// each layer costs. rpc_32_clients is HTTP JSON-RPC from 32 concurrent
// clients: its ns/op is the time per call with both cores busy.
func BenchmarkFetchLayers(b *testing.B) {
	home := b.TempDir()
	st := sqlite.New(filepath.Join(home, "memory.db"))
	if err := st.Open(); err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	svc := memory.NewService(st, &memory.Options{Embedder: localembed.NewGloveEmbedder(0)})
	r := rand.New(rand.NewSource(1))
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx", i)
	}
	for i := 0; i < 10000; i++ {
		words := make([]string, 18)
		for k := range words {
			words[k] = vocab[r.Intn(len(vocab))]
		}
		if _, err := svc.Learn(context.Background(), memory.LearnParams{Text: strings.Join(words, " ")}, contract.CallContext{}); err != nil {
			b.Fatal(err)
		}
	}
	gw := gatewaytest.StartIn(b, home, nil, gateway.Options{Observe: telemetry.ToolCall})
	mcp := mcpserver.New(gw, nil)
	ts := httptest.NewServer(nil)
	ts.Config.Handler = httpapi.New(gw, mcp, httpapi.Options{ListenAddr: ts.Listener.Addr().String()})
	defer ts.Close()
	q := func() string { return vocab[r.Intn(3000)] + " " + vocab[r.Intn(3000)] }
	// The service loads its vector index at its first search; do that
	// before measuring, as the direct path did when learning.
	if _, err := gw.CallTool(context.Background(), "memory.fetch", json.RawMessage(`{"query":"warm up"}`), contract.CallContext{}); err != nil {
		b.Fatal(err)
	}
	b.Run("direct", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := svc.Fetch(context.Background(), memory.FetchParams{Query: q(), Limit: 10}, contract.CallContext{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gateway", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			args, _ := json.Marshal(map[string]any{"query": q(), "limit": 10})
			if _, err := gw.CallTool(context.Background(), "memory.fetch", args, contract.CallContext{Transport: "bench"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rpc_32_clients", func(b *testing.B) {
		b.SetParallelism(32)
		b.RunParallel(func(pb *testing.PB) {
			r := rand.New(rand.NewSource(rand.Int63()))
			for pb.Next() {
				if err := rpcFetch(ts.URL, vocab[r.Intn(3000)]+" "+vocab[r.Intn(3000)]); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("rpc", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := rpcFetch(ts.URL, q()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// rpcFetch makes one memory.fetch call over HTTP JSON-RPC.
func rpcFetch(base, query string) error {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_fetch","params":{"query":%q,"limit":10}}`, query)
	resp, err := http.Post(base+"/rpc", "application/json", strings.NewReader(body))
	if err != nil {
		return err
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(out), `"result"`) {
		return fmt.Errorf("%.200s", out)
	}
	return nil
}

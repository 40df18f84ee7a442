package console_test

import (
	"context"
	"fmt"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/console"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/httpapi"
	"github.com/openhuman-go/openhuman-go/services/gateway/mcpserver"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/memorymain"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// BenchmarkMemoryPage renders the memory page as serve does, at 100,000
// items: the request through the HTTP stack and the console, memory.list
// through the gateway and the embedded bus to the memory service, and the
// template. It reports the median and the 95th percentile per page.
func BenchmarkMemoryPage(b *testing.B) {
	const items = 100_000
	home := b.TempDir()
	seedMemory(b, home, items)
	gw := gatewaytest.StartIn(b, home, nil, gateway.Options{})
	con := console.New(gw, console.Options{})
	b.Cleanup(con.Close)
	h := httpapi.New(gw, mcpserver.New(gw, nil), httpapi.Options{Console: con})

	// The open console starts a session on the first page.
	first := httptest.NewRecorder()
	h.ServeHTTP(first, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/console/memory", nil))
	cookies := first.Result().Cookies()
	if first.Code != http.StatusOK || len(cookies) != 1 {
		b.Fatalf("first page: %d %v", first.Code, cookies)
	}
	page := func() time.Duration {
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/console/memory", nil)
		req.AddCookie(cookies[0])
		rec := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(rec, req)
		took := time.Since(start)
		if rec.Code != http.StatusOK || strings.Count(rec.Body.String(), `<a href="/console/memory/item?id=`) != 50 {
			b.Fatalf("memory page: %d %.300s", rec.Code, rec.Body.String())
		}
		return took
	}
	// The memory service builds its indexes of what it holds on the first
	// search; a search first keeps that work out of the pages measured.
	if _, err := gw.CallTool(context.Background(), "memory.fetch", []byte(`{"query":"coffee"}`), contract.CallContext{Source: "bench"}); err != nil {
		b.Fatal(err)
	}
	for range 20 {
		page() // warm: the item cache, the connection to the bus
	}
	var took []time.Duration
	for b.Loop() {
		took = append(took, page())
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
}

// seedMemory stores n items in home's memory file before the system
// starts, with the embedder the memory service will use (so it has no
// vectors to make in the background while pages are measured).
func seedMemory(b *testing.B, home string, n int) {
	b.Helper()
	cfg, err := config.Load(home, func(string) string { return "" })
	if err != nil {
		b.Fatal(err)
	}
	st := sqlite.New(cfg.Memory.Path)
	if err := st.Open(); err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	svc := memory.NewService(st, &memory.Options{Embedder: memorymain.Embedder(cfg.Memory.Embeddings)})
	r := rand.New(rand.NewSource(1))
	words := strings.Fields("coffee standup deploy freeze review printer badge garden invoice travel kernel budget meeting lunch design " +
		"release backup server note plan goal habit book recipe doctor school project client contract report")
	ctx := context.Background()
	for i := 0; i < n; i += 1000 {
		batch := make([]memory.Item, 0, 1000)
		for j := i; j < min(i+1000, n); j++ {
			text := make([]string, 10+r.Intn(20))
			for k := range text {
				text[k] = words[r.Intn(len(words))]
			}
			batch = append(batch, memory.Item{Kind: "learning", LearningKind: "fact", Source: "client", Provenance: "http:bench",
				Text: fmt.Sprintf("Note %d: %s.", j, strings.Join(text, " "))})
		}
		if _, err := svc.Remember(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
}

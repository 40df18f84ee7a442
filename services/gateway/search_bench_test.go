package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
)

// searxngAnswer is a SearXNG JSON answer of ten results (about 4 KB), as
// the provider fake returns it at once.
var searxngAnswer = func() string {
	var rs []string
	for i := range 10 {
		rs = append(rs, fmt.Sprintf(`{"url":"https://site%d.example.com/page/%d?utm_source=x","title":"Result %d about the query","content":"%s","engine":"duckduckgo","engines":["duckduckgo","brave"],"score":%d,"category":"general"}`,
			i, i, i, strings.Repeat("Snippet text of a web page. ", 8), 10-i))
	}
	return `{"query":"q","number_of_results":0,"results":[` + strings.Join(rs, ",") + `],"answers":[],"corrections":[],"infoboxes":[],"suggestions":[],"unresponsive_engines":[]}`
}()

// BenchmarkWebSearch measures web_search through the gateway over the
// embedded bus against a local SearXNG fake that answers at once:
//
//   - cached: the same query again, served from the cache (p50 target 1 ms);
//   - provider: the fake called directly over HTTP, the floor;
//   - uncached: a new query each time; overhead_p50_us is what the whole
//     path (gateway, bus, service, adapter) adds to the provider call.
func BenchmarkWebSearch(b *testing.B) {
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, searxngAnswer)
	}))
	defer fake.Close()
	gw := gatewaytest.Start(b, map[string]string{"OPENHUMAN_SEARXNG_ENABLED": "true", "OPENHUMAN_SEARXNG_BASE_URL": fake.URL}, gateway.Options{})
	cc := contract.CallContext{Source: "bench"}
	search := func(b *testing.B, query string) {
		args, _ := json.Marshal(map[string]any{"query": query, "max_results": 10})
		if _, err := gw.CallTool(context.Background(), "web_search", args, cc); err != nil {
			b.Fatal(err)
		}
	}
	var providerP50 time.Duration
	b.Run("provider", func(b *testing.B) {
		client := &http.Client{}
		providerP50 = measure(b, func(i int) {
			resp, err := client.Get(fake.URL + "/search?format=json&q=" + fmt.Sprint(i))
			if err != nil {
				b.Fatal(err)
			}
			var v map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
		})
	})
	b.Run("cached", func(b *testing.B) {
		search(b, "warm query")
		measure(b, func(int) { search(b, "warm query") })
	})
	b.Run("uncached", func(b *testing.B) {
		run := time.Now().UnixNano()
		p50 := measure(b, func(i int) { search(b, fmt.Sprintf("query %d %d", run, i)) })
		b.ReportMetric(float64((p50 - providerP50).Microseconds()), "overhead_p50_us")
	})
}

// measure runs fn b.N times and reports the p50 and p99 of one call.
func measure(b *testing.B, fn func(i int)) time.Duration {
	b.Helper()
	took := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		fn(i)
		took[i] = time.Since(start)
	}
	b.StopTimer()
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	p50, p99 := took[len(took)/2], took[len(took)*99/100]
	b.ReportMetric(float64(p50.Microseconds()), "p50_us")
	b.ReportMetric(float64(p99.Microseconds()), "p99_us")
	return p50
}

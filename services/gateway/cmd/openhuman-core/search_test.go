package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/callauth"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn/redistest"
)

// webFakes are local stand-ins for SearXNG, Brave and Gemini, answering as
// they document. searxngMode switches SearXNG between "ok", "json-off"
// (its default settings: 403 for format=json) and "engines-down" (200, no
// results, unresponsive engines).
type webFakes struct {
	searxng, brave, gemini      *httptest.Server
	searxngMode                 atomic.Value
	searxngCalls, braveCalls    atomic.Int32
	geminiCalls                 atomic.Int32
	lastUserAgent, lastLanguage atomic.Value
}

func newWebFakes(t *testing.T) *webFakes {
	t.Helper()
	f := &webFakes{}
	f.searxngMode.Store("ok")
	f.searxng = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.searxngCalls.Add(1)
		f.lastUserAgent.Store(r.UserAgent())
		f.lastLanguage.Store(r.Header.Get("Accept-Language"))
		switch f.searxngMode.Load() {
		case "json-off":
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, "<html>403 Forbidden</html>")
		case "engines-down":
			io.WriteString(w, `{"query":"q","results":[],"unresponsive_engines":[["google","timeout"],["bing","Suspended: too many requests"]]}`)
		default:
			q := r.URL.Query().Get("q")
			fmt.Fprintf(w, `{"query":%q,"results":[
				{"url":"https://www.example.com/a?utm_source=searxng","title":"A about %s","content":"First result.","engine":"duckduckgo","score":3},
				{"url":"https://example.com/a","title":"A again","content":"The same page from another engine.","engine":"brave","score":2},
				{"url":"https://example.org/b","title":"B","content":"Second result.","engine":"duckduckgo","score":1},
				{"url":"https://example.net/c","title":"C","content":"Third result.","engine":"qwant","score":0.5}
			],"unresponsive_engines":[]}`, q, q)
		}
	}))
	f.brave = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.braveCalls.Add(1)
		if r.Header.Get("X-Subscription-Token") != "brave-key" {
			w.WriteHeader(422)
			io.WriteString(w, `{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid.","status":422}}`)
			return
		}
		io.WriteString(w, `{"type":"search","web":{"results":[{"title":"Brave result","url":"https://brave.example/r","description":"Found by Brave."}]}}`)
	}))
	f.gemini = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.geminiCalls.Add(1)
		text := "Go 1.18 added generics."
		json.NewEncoder(w).Encode(map[string]any{"candidates": []any{map[string]any{
			"content": map[string]any{"parts": []any{map[string]any{"text": text}}},
			"groundingMetadata": map[string]any{
				"groundingChunks":   []any{map[string]any{"web": map[string]any{"uri": "https://go.dev/doc/go1.18", "title": "go.dev"}}},
				"groundingSupports": []any{map[string]any{"segment": map[string]any{"startIndex": 0, "endIndex": len(text)}, "groundingChunkIndices": []int{0}}},
			},
		}}})
	}))
	t.Cleanup(func() { f.searxng.Close(); f.brave.Close(); f.gemini.Close() })
	return f
}

// env configures the binary with the fakes.
func (f *webFakes) env() []string {
	return []string{
		"OPENHUMAN_SEARXNG_ENABLED=true", "OPENHUMAN_SEARXNG_BASE_URL=" + f.searxng.URL,
		"OPENHUMAN_BRAVE_API_KEY=brave-key", "OPENHUMAN_BRAVE_BASE_URL=" + f.brave.URL,
		"OPENHUMAN_GEMINI_API_KEY=gemini-key", "OPENHUMAN_GEMINI_BASE_URL=" + f.gemini.URL,
	}
}

// toolError calls a tool that must fail as a tool result and returns its text.
func (p *mcpProc) toolError(id int, name string, args any) string {
	p.t.Helper()
	resp := p.request(id, "tools/call", map[string]any{"name": name, "arguments": args})
	res, ok := resp["result"].(map[string]any)
	if !ok || res["isError"] != true {
		p.t.Fatalf("%s should have failed: %v", name, resp)
	}
	return res["content"].([]any)[0].(map[string]any)["text"].(string)
}

func TestWebToolsOverMCP(t *testing.T) {
	f := newWebFakes(t)
	p := startMCP(t, t.TempDir(), f.env()...)
	p.initialize("Cursor")
	names := toolNames(p, 1)
	if len(names) < 3 || names[0] != "web_search" || names[1] != "web_answer" || names[2] != "searxng_search" {
		t.Fatalf("tools/list = %v", names)
	}

	page := p.tool(2, "web_search", map[string]any{"query": "go generics", "max_results": 2})
	results := page["results"].([]any)
	if page["provider"] != "searxng" || len(results) != 2 || len(page["fallback_from"].([]any)) != 0 {
		t.Fatalf("web_search: %v", page)
	}
	// The same page from two engines is one result, shown with its original URL.
	if r0, r1 := results[0].(map[string]any), results[1].(map[string]any); r0["url"] != "https://www.example.com/a?utm_source=searxng" || r1["title"] != "B" {
		t.Fatalf("results %v", results)
	}
	if ua, _ := f.lastUserAgent.Load().(string); !strings.HasPrefix(ua, "openhuman-go/") || f.lastLanguage.Load() == "" {
		t.Errorf("SearXNG saw User-Agent %q, Accept-Language %q", ua, f.lastLanguage.Load())
	}
	again := p.tool(3, "web_search", map[string]any{"query": "  Go GENERICS ", "max_results": 2})
	if again["cached"] != true || f.searxngCalls.Load() != 1 {
		t.Fatalf("second identical search: cached=%v, SearXNG called %d times", again["cached"], f.searxngCalls.Load())
	}

	// SearXNG with its default settings (json off): Brave answers, and
	// fallback_from says what to fix.
	f.searxngMode.Store("json-off")
	page = p.tool(4, "web_search", map[string]any{"query": "rust traits"})
	skipped := page["fallback_from"].([]any)
	if page["provider"] != "brave" || len(skipped) != 1 || !strings.Contains(skipped[0].(map[string]any)["reason"].(string), "answered 403: add json to search.formats in its settings.yml") {
		t.Fatalf("fallback: %v", page)
	}
	// A 403 cannot fix itself: SearXNG is now disabled, and pinning it
	// says so instead of calling it.
	calls := f.searxngCalls.Load()
	text := p.toolError(5, "searxng_search", map[string]any{"query": "anything"})
	mustContain(t, text, "searxng_search failed: searxng is skipped: disabled: SearXNG at "+f.searxng.URL+" answered 403: add json to search.formats")
	if f.searxngCalls.Load() != calls {
		t.Error("a disabled provider was called")
	}

	ans := p.tool(6, "web_answer", map[string]any{"query": "When did Go get generics?"})
	if ans["provider"] != "gemini" || ans["model"] != "gemini-2.5-flash" ||
		ans["answer"] != "Go 1.18 added generics.[1]\n\nSources:\n[1] go.dev — https://go.dev/doc/go1.18" {
		t.Fatalf("web_answer: %v", ans)
	}

	// Bad input names the field; the server keeps serving.
	for id, tc := range map[int]struct {
		name string
		args map[string]any
		want string
	}{
		7:  {"web_search", map[string]any{"query": "x", "max_results": 50}, "max_results"},
		8:  {"web_search", map[string]any{"query": "x", "provider": "google"}, "provider"},
		9:  {"web_search", map[string]any{"query": "   "}, "query"},
		10: {"web_answer", map[string]any{"query": "x", "depth": "thorough"}, "depth"},
		11: {"searxng_search", map[string]any{"query": "x", "provider": "brave"}, "provider"},
		12: {"web_search", map[string]any{"query": strings.Repeat("long ", 100)}, "query"},
	} {
		resp := p.request(id, "tools/call", map[string]any{"name": tc.name, "arguments": tc.args})
		e, _ := resp["error"].(map[string]any)
		if e == nil || e["code"] != float64(-32602) || !strings.Contains(e["message"].(string), tc.want) {
			t.Errorf("%s %v: %v", tc.name, tc.args, resp)
		}
	}
	if p.tool(13, "web_search", map[string]any{"query": "still serving", "provider": "brave"})["provider"] != "brave" {
		t.Error("pinned brave")
	}
	// The core agent's catalog and instructions offer the web tools now.
	md := p.tool(14, "core.tool_instructions", map[string]any{})["instructions"].(string)
	for _, name := range []string{"web_search", "web_answer", "searxng_search"} {
		mustContain(t, md, "### `"+name+"`")
	}
}

func TestWebToolsWhenEveryProviderFails(t *testing.T) {
	f := newWebFakes(t)
	f.searxngMode.Store("engines-down")
	p := startMCP(t, t.TempDir(), "OPENHUMAN_SEARXNG_ENABLED=true", "OPENHUMAN_SEARXNG_BASE_URL="+f.searxng.URL,
		"OPENHUMAN_BRAVE_API_KEY=wrong", "OPENHUMAN_BRAVE_BASE_URL="+f.brave.URL)
	p.initialize("Zed")
	text := p.toolError(1, "web_search", map[string]any{"query": "anything"})
	mustContain(t, text, "every search provider failed: searxng: SearXNG returned no results because its engines failed (google: timeout; bing: Suspended: too many requests)")
	mustContain(t, text, "brave: Brave Search at "+f.brave.URL)
	mustContain(t, text, "The provided subscription token is invalid.; check OPENHUMAN_BRAVE_API_KEY")
	// Without Gemini, web_answer searches; with every provider down it says why.
	mustContain(t, p.toolError(2, "web_answer", map[string]any{"query": "anything else"}), "every search provider failed")

	// SearXNG recovers; its answer is not a cached failure.
	f.searxngMode.Store("ok")
	if page := p.tool(3, "web_search", map[string]any{"query": "anything"}); page["provider"] != "searxng" {
		t.Fatalf("after recovery: %v", page)
	}
	// Without a language model, the answer quotes the results.
	ans := p.tool(4, "web_answer", map[string]any{"query": "something new"})
	if ans["model"] != "extractive" || !strings.HasPrefix(ans["answer"].(string), "From the web:\n- First result. [1]") {
		t.Fatalf("extractive answer: %v", ans)
	}
}

func TestWebToolsAreAbsentWithoutAProvider(t *testing.T) {
	p := startMCP(t, t.TempDir())
	p.initialize("Claude Desktop")
	for _, name := range toolNames(p, 1) {
		if strings.HasPrefix(name, "web_") || name == "searxng_search" {
			t.Fatalf("%s listed with no provider configured", name)
		}
	}
	// Called anyway, it says what to configure.
	text := p.toolError(2, "web_search", map[string]any{"query": "x"})
	mustContain(t, text, "web_search failed: not enabled here: configure a search provider: enable SearXNG")
	// The core agent's catalog does not offer them either.
	for _, tl := range p.tool(3, "core.list_tools", map[string]any{})["tools"].([]any) {
		if name := tl.(map[string]any)["name"].(string); strings.HasPrefix(name, "web_") || name == "searxng_search" {
			t.Errorf("core.list_tools offers %s with no provider configured", name)
		}
	}
}

// TestSearchReplicasShareRedis runs two openhuman-search processes with one
// Redis behind a gateway on a real NATS server, as compose does: whichever
// replica answers, an identical search hits the provider once.
func TestSearchReplicasShareRedis(t *testing.T) {
	redisURL, prefix := redistest.URL(), redistest.Prefix(t)
	ns, err := embedded.Start(embedded.Options{Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	f := newWebFakes(t)
	metrics := []string{freePort(t), freePort(t)}
	for _, addr := range metrics {
		startService(t, "openhuman-search", t.TempDir(), ns.ClientURL(),
			append(f.env(), "OPENHUMAN_REDIS_URL="+redisURL, "OPENHUMAN_REDIS_PREFIX="+prefix, "OPENHUMAN_METRICS_ADDR="+addr)...)
	}
	startService(t, "openhuman-memory", t.TempDir(), ns.ClientURL(), "OPENHUMAN_METRICS_ADDR=127.0.0.1:0")
	startService(t, "openhuman-agents", t.TempDir(), ns.ClientURL(), "OPENHUMAN_METRICS_ADDR=127.0.0.1:0")
	base := startServe(t, t.TempDir(), "OPENHUMAN_NATS_URL="+ns.ClientURL())
	waitFor(t, 15e9, func() bool {
		return strings.Contains(scrape(t, "http://"+metrics[1]+"/metrics"), "openhuman_search_provider_state")
	}, func() string { return "search replicas not up" })

	// NATS balances requests at random: call until both replicas answered.
	served := func(addr string) float64 {
		return metricValue(scrape(t, "http://"+addr+"/metrics"), `openhuman_service_requests_total{method="web_search",outcome="ok",service="search"}`)
	}
	calls := 0
	for calls < 4 || (served(metrics[0]) == 0 || served(metrics[1]) == 0) && calls < 60 {
		rpcCall(t, base, "openhuman.tools_web_search", `{"query":"shared cache","max_results":3}`)
		calls++
	}
	if served(metrics[0]) == 0 || served(metrics[1]) == 0 {
		t.Fatalf("after %d calls one replica never answered", calls)
	}
	if n := f.searxngCalls.Load(); n != 1 {
		t.Fatalf("SearXNG called %d times for %d identical searches over two replicas", n, calls)
	}
	var hits, oks float64
	for _, addr := range metrics {
		m := scrape(t, "http://"+addr+"/metrics")
		hits += metricValue(m, `openhuman_search_cache_total{result="hit"}`)
		oks += metricValue(m, `openhuman_search_provider_calls_total{outcome="ok",provider="searxng"}`)
		mustContain(t, m, `openhuman_search_provider_state{provider="searxng",state="closed"} 1`)
	}
	if hits != float64(calls-1) || oks != 1 {
		t.Errorf("cache hits %v, provider calls %v across replicas; want %d and 1", hits, oks, calls-1)
	}

	// A request captured and sent again is refused by both replicas, the
	// one that took it and the other: they share the nonces in Redis.
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	subject, reply := contract.WebSearch.Subject(), nc.NewInbox()
	body, _ := contract.EncodeRequest(json.RawMessage(`{"query":"sent twice"}`), contract.CallContext{Source: "rpc"})
	signer := bustest.Keys().GatewaySigner()
	auth, _, err := signer.Sign(context.Background(), subject, reply, body, contract.CallContext{Source: "rpc"}, time.Now().Add(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	answers, err := nc.SubscribeSync(reply)
	if err != nil {
		t.Fatal(err)
	}
	const sends = 12
	for range sends {
		if err := nc.PublishMsg(&nats.Msg{Subject: subject, Reply: reply, Data: body, Header: nats.Header{callauth.Header: {auth}}}); err != nil {
			t.Fatal(err)
		}
	}
	var ok, replays int
	for ok+replays < sends {
		m, err := answers.NextMsg(10 * time.Second)
		if err != nil {
			t.Fatalf("%d answers of %d: %v", ok+replays, sends, err)
		}
		if m.Header.Get(bus.HeartbeatHeader) != "" {
			continue
		}
		if from := m.Header.Get(callauth.SealHeader); from != "" { // the answer to the request taken
			_, nonce, _ := callauth.ReplyTo(auth)
			if m.Data, err = signer.Replies().Open(callauth.KindReply, from, nonce, reply, m.Data); err != nil {
				t.Fatal(err)
			}
		}
		switch r, err := contract.DecodeReply(m.Data); {
		case err != nil:
			t.Fatalf("answer %q: %v", m.Data, err)
		case r.Error == nil:
			ok++
		case r.Error.Code == contract.CodeDenied && strings.Contains(r.Error.Message, "replay"):
			replays++
		default:
			t.Fatalf("answer %s", m.Data)
		}
	}
	if ok != 1 {
		t.Errorf("one request sent %d times to two replicas was taken %d times", sends, ok)
	}
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// metricValue reads one series' value from a scrape (0 when absent).
func metricValue(scraped, series string) float64 {
	for _, line := range strings.Split(scraped, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			var f float64
			fmt.Sscan(v, &f)
			return f
		}
	}
	return 0
}

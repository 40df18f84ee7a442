package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/memory/memorymain"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"HTTP Client","version":"1"}}}`

var mcpHeaders = []string{"Accept", "application/json, text/event-stream"}

func withSession(id string) []string {
	return append([]string{"Mcp-Session-Id", id, "Mcp-Protocol-Version", "2025-11-25"}, mcpHeaders...)
}

func TestMCPOverHTTP(t *testing.T) {
	ts := mustServe(t, gateway.Options{})
	url := ts.URL + "/mcp"

	resp, body := post(t, url, initBody, mcpHeaders...)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" || !strings.Contains(body, `"capabilities":{"tools":{},"resources":{"subscribe":false,"listChanged":false}}`) {
		t.Fatalf("initialize: %d %q %s", resp.StatusCode, sid, body)
	}
	if resp, _ := post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, withSession(sid)...); resp.StatusCode != http.StatusAccepted {
		t.Errorf("notification: %d, want 202", resp.StatusCode)
	}
	_, body = post(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory.learn","arguments":{"text":"Streamable HTTP clients can learn."}}}`, withSession(sid)...)
	if !strings.Contains(body, `\"replayed\": false`) {
		t.Fatalf("learn: %s", body)
	}
	_, body = post(t, url, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory.fetch","arguments":{"query":"streamable clients"}}}`, withSession(sid)...)
	if !strings.Contains(body, `mcp:http-client`) {
		t.Errorf("provenance of the HTTP session missing: %s", body)
	}
	// The tool list is past net/http's buffer: sent with its length all the same.
	resp, body = post(t, url, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, withSession(sid)...)
	if resp.ContentLength != int64(len(body)) || len(body) < 8<<10 {
		t.Errorf("tools/list: Content-Length %d for a %d-byte answer", resp.ContentLength, len(body))
	}

	for _, tc := range []struct {
		name    string
		body    string
		headers []string
		status  int
		want    string
	}{
		{"no session", `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, mcpHeaders, 400, "Mcp-Session-Id header is required"},
		{"unknown session", `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, withSession("feedface"), 404, "Session not found"},
		{"bad protocol version", `{"jsonrpc":"2.0","id":4,"method":"ping"}`, []string{"Mcp-Session-Id", sid, "Mcp-Protocol-Version", "1999-01-01"}, 400, "unsupported Mcp-Protocol-Version"},
		{"not acceptable", `{"jsonrpc":"2.0","id":4,"method":"ping"}`, []string{"Mcp-Session-Id", sid, "Accept", "text/html"}, 406, "Not Acceptable"},
		{"wrong content type", `{"jsonrpc":"2.0","id":4,"method":"ping"}`, []string{"Mcp-Session-Id", sid, "Content-Type", "text/plain"}, 415, "application/json"},
		{"bad JSON keeps the session", `{oops`, withSession(sid), 200, `"code":-32700`},
		{"bad arguments", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"memory.recall","arguments":{}}}`, withSession(sid), 200, "missing required argument `question`"},
		{"ping still works", `{"jsonrpc":"2.0","id":6,"method":"ping"}`, withSession(sid), 200, `{"jsonrpc":"2.0","id":6,"result":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, url, tc.body, tc.headers...)
			if resp.StatusCode != tc.status || !strings.Contains(body, tc.want) {
				t.Errorf("%d %s; want %d containing %q", resp.StatusCode, body, tc.status, tc.want)
			}
		})
	}

	t.Run("GET has no stream", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("GET /mcp: %d", resp.StatusCode)
		}
	})
	t.Run("DELETE ends the session", func(t *testing.T) {
		for i, want := range []int{http.StatusNoContent, http.StatusNotFound} {
			req, _ := http.NewRequest(http.MethodDelete, url, nil)
			req.Header.Set("Mcp-Session-Id", sid)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("DELETE #%d: %d, want %d", i+1, resp.StatusCode, want)
			}
		}
		if resp, _ := post(t, url, `{"jsonrpc":"2.0","id":7,"method":"ping"}`, withSession(sid)...); resp.StatusCode != 404 {
			t.Errorf("closed session still answers: %d", resp.StatusCode)
		}
	})
}

// TestMCPLifecycleOverHTTP: a session serves nothing but ping until
// initialize has succeeded on it, and keeps the client label it got then.
func TestMCPLifecycleOverHTTP(t *testing.T) {
	ts := mustServe(t, gateway.Options{})
	url := ts.URL + "/mcp"
	// An initialize that fails still names a session, which is not
	// initialized: a tool call on it is refused and stores nothing.
	resp, body := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":"oops"}}`, mcpHeaders...)
	failed := resp.Header.Get("Mcp-Session-Id")
	if !strings.Contains(body, `"code":-32602`) || failed == "" {
		t.Fatalf("failed initialize: %s %q", body, failed)
	}
	learn := func(id, word string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"memory.learn","arguments":{"text":"Written by ` + word + `."}}}`
	}
	if _, body := post(t, url, learn("2", "zquninitword"), withSession(failed)...); !strings.Contains(body, `"code":-32600`) || !strings.Contains(body, "tools/call before initialize; send initialize first") {
		t.Errorf("tools/call before initialize: %s", body)
	}
	if _, body := post(t, url, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, withSession(failed)...); body != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Errorf("ping before initialize: %s", body)
	}

	resp, _ = post(t, url, initBody, mcpHeaders...)
	sid := resp.Header.Get("Mcp-Session-Id")
	// tools/list right after initialize's answer, before
	// notifications/initialized, as many clients send it.
	if _, body := post(t, url, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, withSession(sid)...); !strings.Contains(body, `"tools":[`) {
		t.Errorf("tools/list before notifications/initialized: %.200s", body)
	}
	again := `{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"Impostor"}}}`
	resp, body = post(t, url, again, withSession(sid)...)
	if !strings.Contains(body, `"code":-32600`) || !strings.Contains(body, "already initialized (as mcp:http-client)") || resp.Header.Get("Mcp-Session-Id") != sid {
		t.Errorf("second initialize: %s (session %q)", body, resp.Header.Get("Mcp-Session-Id"))
	}
	post(t, url, learn("6", "zqlabelword"), withSession(sid)...)
	_, body = post(t, url, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory.fetch","arguments":{"query":"zqlabelword zquninitword"}}}`, withSession(sid)...)
	if !strings.Contains(body, "zqlabelword") || !strings.Contains(body, `mcp:http-client`) || strings.Contains(body, "mcp:impostor") {
		t.Errorf("the session's label changed: %.600s", body)
	}
	if strings.Contains(body, "zquninitword") {
		t.Errorf("the call before initialize was stored: %.600s", body)
	}
	// An empty body on a session is an error, not a silent 202.
	if resp, body := post(t, url, "", withSession(sid)...); resp.StatusCode != 200 || !strings.Contains(body, "the message is empty") {
		t.Errorf("empty body: %d %s", resp.StatusCode, body)
	}
}

func TestDNSRebindingProtection(t *testing.T) {
	ts := mustServe(t, gateway.Options{})
	for _, tc := range []struct {
		name, host, origin string
		status             int
	}{
		{"evil host", "evil.example.com", "", 403},
		{"evil origin", "", "http://evil.example.com", 403},
		{"evil host and origin", "evil.example.com:80", "http://evil.example.com", 403},
		{"localhost", "localhost", "http://localhost:3000", 200},
		{"loopback ip", "", "http://127.0.0.1", 200},
		{"ipv6 loopback", "[::1]:9300", "", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{"/mcp", "/rpc"} {
				req, _ := http.NewRequest(http.MethodPost, ts.URL+path, bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if tc.host != "" {
					req.Host = tc.host
				}
				if tc.origin != "" {
					req.Header.Set("Origin", tc.origin)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tc.status {
					t.Errorf("%s: %d %s, want %d", path, resp.StatusCode, body, tc.status)
				}
			}
		})
	}
}

func TestHealthAndReadiness(t *testing.T) {
	get := func(t *testing.T, url string) (int, map[string]any) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	ts := mustServe(t, gateway.Options{})
	if code, m := get(t, ts.URL+"/healthz"); code != 200 || m["status"] != "ok" {
		t.Errorf("healthz %d %v", code, m)
	}
	if code, m := get(t, ts.URL+"/readyz"); code != 200 || m["status"] != "ready" {
		t.Errorf("readyz %d %v", code, m)
	} else if search, _ := m["services"].(map[string]any)["search"].(string); !strings.HasPrefix(search, "not configured") {
		t.Errorf("readyz with no search provider: %v", m)
	}
	// A SearXNG that refuses JSON: search does not work, and readiness
	// says so without failing the gateway (memory and agents work).
	searxng := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, "<html>403 Forbidden</html>")
	}))
	t.Cleanup(searxng.Close)
	gw := gatewaytest.Start(t, map[string]string{"OPENHUMAN_SEARXNG_ENABLED": "true", "OPENHUMAN_SEARXNG_BASE_URL": searxng.URL}, gateway.Options{})
	broken := serveGateway(t, gw)
	if _, err := gw.CallTool(context.Background(), "web_search", []byte(`{"query":"q"}`), contract.CallContext{}); err == nil {
		t.Fatal("search succeeded")
	}
	code, m := get(t, broken.URL+"/readyz")
	services, _ := m["services"].(map[string]any)
	search, _ := services["search"].(string)
	providers, _ := m["search_providers"].([]any)
	if code != 200 || m["status"] != "degraded" || !strings.Contains(search, "searxng: disabled: SearXNG at "+searxng.URL+" answered 403") || len(providers) == 0 {
		t.Errorf("readyz with SearXNG refusing JSON: %d %v", code, m)
	} else if p := providers[0].(map[string]any); p["name"] != "searxng" || p["state"] != "disabled" || p["reachable"] != false || p["retry_at"] == nil {
		t.Errorf("searxng %v", p)
	}
	// A gateway that expects a service nobody runs is not ready, and says which.
	notReady := serveGateway(t, gatewayWithOnlyMemory(t, gateway.Options{Expect: []string{contract.ServiceMemory, contract.ServiceSearch}}))
	code, m = get(t, notReady.URL+"/readyz")
	services, _ = m["services"].(map[string]any)
	if code != 503 || services["memory"] != "ok" || !strings.Contains(services["search"].(string), "openhuman-search") {
		t.Errorf("readyz %d %v", code, m)
	}
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "openhuman_memory_items") {
		t.Errorf("metrics lack memory size")
	}
}

// gatewayWithOnlyMemory runs a gateway on an embedded NATS server where only
// the memory service runs.
func gatewayWithOnlyMemory(t *testing.T, opts gateway.Options) *gateway.Gateway {
	t.Helper()
	ns, err := embedded.Start(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	log := slog.New(slog.DiscardHandler)
	svcConn, err := ns.Connect("memory", log)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(t.TempDir(), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Bus = bustest.Keys().Service()
	closer, err := memorymain.Start(svcConn, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closer.Close() })
	nc, err := ns.Connect("gateway", log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return gateway.New(bus.NewClient(nc, bustest.Keys().GatewaySigner()), opts)
}

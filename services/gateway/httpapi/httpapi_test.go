package httpapi_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/httpapi"
	"github.com/openhuman-go/openhuman-go/services/gateway/mcpserver"
)

// mustServe runs the real embedded system behind a real HTTP listener.
func mustServe(tb testing.TB, opts gateway.Options) *httptest.Server {
	tb.Helper()
	opts.Observe = telemetry.ToolCall
	return serveGateway(tb, gatewaytest.Start(tb, nil, opts))
}

// serveGateway runs gw behind a real HTTP listener.
func serveGateway(tb testing.TB, gw *gateway.Gateway) *httptest.Server {
	tb.Helper()
	return serveWith(tb, gw, httpapi.Options{Metrics: telemetry.MetricsHandler()})
}

// serveWith is serveGateway with options; ListenAddr is the listener's.
func serveWith(tb testing.TB, gw *gateway.Gateway, opts httpapi.Options) *httptest.Server {
	tb.Helper()
	mcp := mcpserver.New(gw, &mcpserver.Options{Version: "test", Instructions: gateway.Instructions})
	ts := httptest.NewUnstartedServer(nil)
	ts.Start()
	opts.ListenAddr = ts.Listener.Addr().String()
	ts.Config.Handler = httpapi.New(gw, mcp, opts)
	tb.Cleanup(ts.Close)
	return ts
}

// post sends body as JSON, with headers (name, value, ...) set after.
func post(t *testing.T, url, body string, headers ...string) (*http.Response, string) {
	t.Helper()
	return rawPost(t, url, []byte(body), append([]string{"Content-Type", "application/json"}, headers...)...)
}

// rawPost sends body with exactly the headers given: no Content-Type
// unless one is named.
func rawPost(t *testing.T, url string, body []byte, headers ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestRPC(t *testing.T) {
	ts := mustServe(t, gateway.Options{})
	url := ts.URL + "/rpc"
	batch := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"openhuman.memory_items_list","params":{}}`, i)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	for _, tc := range []struct {
		name, body string
		status     int
		want       []string // substrings of the response body
	}{
		{"learn", `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_learn","params":{"text":"RPC clients can learn too."}}`, 200, []string{`"result":{"id":"`, `"replayed":false`}},
		{"fetch", `{"jsonrpc":"2.0","id":2,"method":"openhuman.memory_fetch","params":{"query":"RPC clients"}}`, 200, []string{`"provenance":"rpc"`}},
		{"invalid JSON", `{"jsonrpc":`, 200, []string{`"code":-32700`}},
		{"wrong jsonrpc version", `{"jsonrpc":"1.0","id":1,"method":"openhuman.memory_items_list"}`, 200, []string{`"code":-32600`, `"jsonrpc\" must be \"2.0\"`}},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"openhuman.nope"}`, 200, []string{`"code":-32601`, "Method not found: openhuman.nope"}},
		{"a method near one", `{"jsonrpc":"2.0","id":1,"method":"openhuman.web_search"}`, 200,
			[]string{`"code":-32601`, "Method not found: openhuman.web_search; did you mean openhuman.tools_web_search, ", `"suggestions":["openhuman.tools_web_search",`, "docs/tools.md lists every method"}},
		{"a tool's name", `{"jsonrpc":"2.0","id":1,"method":"memory.recall"}`, 200, []string{`"code":-32601`, "did you mean openhuman.memory_recall, "}},
		{"bad params", `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_recall","params":{"question":""}}`, 200, []string{`"code":-32602`, `"field":"question"`, `"code":"INVALID_REQUEST"`}},
		{"params array", `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_items_list","params":[1]}`, 200, []string{`"code":-32602`, "not an array"}},
		{"bad cursor", `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_fetch","params":{"query":"x","cursor":"zzz"}}`, 200, []string{`"code":-32602`, `"field":"cursor"`}},
		{"registry unknown id", `{"jsonrpc":"2.0","id":1,"method":"openhuman.tool_registry_get","params":{"tool_id":"nope"}}`, 200, []string{`"code":-32004`, "tool not found in registry: nope"}},
		{"batch of 0", `[]`, 200, []string{`"code":-32600`, "empty batch"}},
		{"batch of 3", batch(3), 200, []string{`"id":0`, `"id":1`, `"id":2`}},
		{"batch of 100", batch(100), 200, []string{`"id":99`}}, // past net/http's buffer: sent with its length all the same
		{"batch of 1000", batch(1000), 200, []string{`"code":-32600`, "batch of 1000 requests is over the limit of 100"}},
		{"5 MiB body", `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_learn","params":{"text":"` + strings.Repeat("x", 5<<20) + `"}}`, 413, []string{"over 4 MiB"}},
		{"notification", `{"jsonrpc":"2.0","method":"openhuman.memory_items_list"}`, 204, nil},
		{"empty body", ``, 200, []string{`"code":-32600`, "the message is empty; send a JSON-RPC request object"}},
		{"blank body", " \r\n\t", 200, []string{`"code":-32600`, "the message is empty"}},
		{"nested too deep", `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_items_list","params":{"filter":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}`, 200,
			[]string{`"code":-32700`, "nested too deep (limit 10000 levels of arrays and objects)"}},
		{"batch nested too deep", `[` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `]`, 200, []string{`"code":-32700`, "nested too deep (limit 10000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, url, tc.body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %.300s", resp.StatusCode, tc.status, body)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("%.400s\ndoes not contain %s", body, w)
				}
			}
			if len(body) > 64<<10 {
				t.Errorf("response is %d bytes", len(body))
			}
			if tc.status == 200 && resp.ContentLength != int64(len(body)) {
				t.Errorf("Content-Length %d for a %d-byte response", resp.ContentLength, len(body))
			}
		})
	}
	t.Run("batch of 1000 is refused whole", func(t *testing.T) {
		_, body := post(t, url, batch(1000))
		if strings.HasPrefix(body, "[") {
			t.Errorf("some of the batch ran: %.200s", body)
		}
	})
}

// A route called with the wrong method says which it takes.
func TestWrongMethodSaysWhichIsRight(t *testing.T) {
	ts := mustServe(t, gateway.Options{})
	resp, err := http.Get(ts.URL + "/rpc")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(string(body), "/rpc takes POST, not GET") {
		t.Fatalf("GET /rpc: %d %s", resp.StatusCode, body)
	}
}

package httpapi_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/httpapi"
)

// multipartBody wraps msg in a multipart form, as a page's <form> sends it.
func multipartBody(msg string) (body []byte, contentType string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField(msg, "")
	mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}

// TestCrossSiteRequestsAreRefused sends what a web page can send without
// a CORS preflight, to /rpc and to /mcp: each is refused, and nothing it
// asked for happens (memory is read back through a legitimate request).
func TestCrossSiteRequestsAreRefused(t *testing.T) {
	gw := gatewaytest.Start(t, nil, gateway.Options{Observe: telemetry.ToolCall})
	ts := serveGateway(t, gw)

	// A legitimate client stores one item and opens a session; the attacks
	// try to forget the item and to write through the session.
	_, body := post(t, ts.URL+"/rpc", `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_learn","params":{"text":"The keep-me marker zqkeepword stays."}}`)
	keptID := between(body, `"id":"`, `"`)
	if keptID == "" {
		t.Fatalf("learn: %s", body)
	}
	resp, _ := post(t, ts.URL+"/mcp", initBody, mcpHeaders...)
	sid := resp.Header.Get("Mcp-Session-Id")
	post(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, withSession(sid)...)

	learnRPC := func(word string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_learn","params":{"text":"Planted by a web page: ` + word + `."}}`
	}
	forgetRPC := `{"jsonrpc":"2.0","id":2,"method":"openhuman.memory_forget","params":{"ids":["` + keptID + `"]}}`
	learnMCP := func(word string) string {
		return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory.learn","arguments":{"text":"Planted by a web page: ` + word + `."}}}`
	}
	type attack struct {
		name        string
		contentType string // "" sends none
		origin      string
		status      int
		want        string
	}
	attacks := []attack{
		{"Origin null", "application/json", "null", 403, "Origin null"},
		{"text/plain", "text/plain", "", 415, "Content-Type text/plain"},
		{"text/plain from a null origin", "text/plain;charset=UTF-8", "null", 403, "Origin null"},
		{"form", "application/x-www-form-urlencoded", "", 415, "Content-Type application/x-www-form-urlencoded"},
		{"multipart", "multipart/form-data", "", 415, "Content-Type multipart/form-data"},
		{"no content type", "", "", 415, "no Content-Type"},
		{"json lookalike", "application/jsonp", "", 415, "Content-Type application/jsonp"},
	}
	var planted []string
	for i, a := range attacks {
		for j, target := range []string{"rpc learn", "rpc forget", "mcp initialize", "mcp learn"} {
			t.Run(a.name+"/"+target, func(t *testing.T) {
				word := fmt.Sprintf("zqplanted%dx%d", i, j)
				path, msg, headers := "/rpc", learnRPC(word), []string{}
				switch target {
				case "rpc forget":
					msg = forgetRPC
				case "mcp initialize":
					path, msg, headers = "/mcp", initBody, mcpHeaders
				case "mcp learn":
					path, msg, headers = "/mcp", learnMCP(word), withSession(sid)
				}
				planted = append(planted, word)
				body := []byte(msg)
				ct := a.contentType
				if ct == "multipart/form-data" {
					body, ct = multipartBody(msg)
				}
				if ct != "" {
					headers = append(headers, "Content-Type", ct)
				}
				if a.origin != "" {
					headers = append(headers, "Origin", a.origin)
				}
				resp, out := rawPost(t, ts.URL+path, body, headers...)
				if resp.StatusCode != a.status || !strings.Contains(out, a.want) {
					t.Errorf("%d %s; want %d naming %q", resp.StatusCode, out, a.status, a.want)
				}
				if target == "mcp initialize" && resp.Header.Get("Mcp-Session-Id") != "" {
					t.Errorf("a session was opened: %s", resp.Header.Get("Mcp-Session-Id"))
				}
			})
		}
	}

	// Nothing was planted, nothing forgotten; the same request sent as
	// JSON does store, so the check can see a write.
	_, body = post(t, ts.URL+"/rpc", `{"jsonrpc":"2.0","id":9,"method":"openhuman.memory_items_list","params":{"limit":100}}`)
	for _, word := range planted {
		if strings.Contains(body, word) {
			t.Errorf("%s was stored", word)
		}
	}
	if !strings.Contains(body, "zqkeepword") {
		t.Errorf("the kept item was forgotten: %.300s", body)
	}
	post(t, ts.URL+"/mcp", learnMCP("zqcontrolword"), withSession(sid)...)
	if _, body := post(t, ts.URL+"/rpc", `{"jsonrpc":"2.0","id":9,"method":"openhuman.memory_fetch","params":{"query":"zqcontrolword"}}`); !strings.Contains(body, "zqcontrolword") {
		t.Errorf("a JSON learn was not stored either: %.300s", body)
	}
}

func TestNullOriginWhenAllowed(t *testing.T) {
	ts := serveWith(t, gatewaytest.Start(t, nil, gateway.Options{}), httpapi.Options{AllowNullOrigin: true})
	learn := []byte(`{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_learn","params":{"text":"From a sandboxed frame."}}`)
	if resp, body := rawPost(t, ts.URL+"/rpc", learn, "Origin", "null", "Content-Type", "application/json; charset=utf-8"); resp.StatusCode != 200 || !strings.Contains(body, `"result"`) {
		t.Errorf("Origin null allowed: %d %s", resp.StatusCode, body)
	}
	// Allowing null origins does not let simple requests through.
	if resp, body := rawPost(t, ts.URL+"/rpc", learn, "Origin", "null", "Content-Type", "text/plain"); resp.StatusCode != 415 {
		t.Errorf("text/plain from a null origin: %d %s", resp.StatusCode, body)
	}
}

// between returns the text of s after the first from, up to the next to.
func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}

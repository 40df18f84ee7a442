package httpapi_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
)

// modernCall is a 2026-07-28 request: its body and the headers that
// revision requires with it.
func modernCall(id int, method, name, args, client string) (body string, headers []string) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	if client != "" {
		meta += `,"io.modelcontextprotocol/clientInfo":{"name":"` + client + `","version":"1"}`
	}
	meta += "}"
	params := meta
	switch {
	case method == "tools/call":
		params = fmt.Sprintf(`"name":%q,"arguments":%s,%s`, name, args, meta)
	case method == "resources/read":
		params = fmt.Sprintf(`"uri":%q,%s`, name, meta)
	}
	headers = append([]string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", method}, mcpHeaders...)
	if name != "" {
		headers = append(headers, "Mcp-Name", name)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s}}`, id, method, params), headers
}

type rpcAnswer struct {
	Result map[string]any
	Error  *struct {
		Code    int
		Message string
		Data    map[string]any
	}
}

func decodeAnswer(t *testing.T, body string) rpcAnswer {
	t.Helper()
	var a rpcAnswer
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return a
}

// TestStatelessHTTP: a 2026-07-28 POST needs no session, and is refused
// when its headers say other than its body.
func TestStatelessHTTP(t *testing.T) {
	url := mustServe(t, gateway.Options{}).URL + "/mcp"
	body, headers := modernCall(1, "server/discover", "", "", "HTTP Stateless")
	resp, out := post(t, url, body, headers...)
	a := decodeAnswer(t, out)
	if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") != "" || a.Result["resultType"] != "complete" || len(a.Result["supportedVersions"].([]any)) != 5 {
		t.Fatalf("discover: %d %q %s", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), out)
	}
	body, headers = modernCall(2, "tools/call", "memory.learn", `{"text":"Stateless HTTP needs no session: zqhttpword."}`, "HTTP Stateless")
	if resp, out := post(t, url, body, headers...); resp.StatusCode != 200 || !strings.Contains(out, `"resultType":"complete"`) {
		t.Fatalf("learn: %d %s", resp.StatusCode, out)
	}
	body, headers = modernCall(3, "tools/call", "memory.fetch", `{"query":"zqhttpword"}`, "")
	if _, out := post(t, url, body, headers...); !strings.Contains(out, `mcp:http-stateless`) {
		t.Errorf("fetch: provenance missing: %s", out)
	}

	learn, learnHeaders := modernCall(4, "tools/call", "memory.learn", `{"text":"Never stored: zqmismatch."}`, "X")
	without := func(name string) []string {
		var out []string
		for i := 0; i+1 < len(learnHeaders); i += 2 {
			if learnHeaders[i] != name {
				out = append(out, learnHeaders[i], learnHeaders[i+1])
			}
		}
		return out
	}
	ping, pingHeaders := modernCall(5, "ping", "", "", "X")
	batch := "[" + learn + "]"
	for _, tc := range []struct {
		name    string
		body    string
		headers []string
		status  int
		code    int
	}{
		{"no Mcp-Method", learn, without("Mcp-Method"), 400, -32020},
		{"other Mcp-Method", learn, append(without("Mcp-Method"), "Mcp-Method", "tools/list"), 400, -32020},
		{"no Mcp-Name", learn, without("Mcp-Name"), 400, -32020},
		{"other Mcp-Name", learn, append(without("Mcp-Name"), "Mcp-Name", "memory.fetch"), 400, -32020},
		{"body names another version", strings.Replace(learn, "2026-07-28", "2025-11-25", 1), learnHeaders, 400, -32020},
		{"no version header", learn, without("Mcp-Protocol-Version"), 400, -32020},
		{"unsupported version", strings.Replace(learn, "2026-07-28", "2099-01-01", 1), append(without("Mcp-Protocol-Version"), "Mcp-Protocol-Version", "2099-01-01"), 400, -32022},
		{"ping is gone", ping, pingHeaders, 404, -32601},
		{"batch", batch, learnHeaders, 400, -32600},
		{"a response", `{"jsonrpc":"2.0","id":"x","result":{}}`, learnHeaders, 400, -32600},
		{"Mcp-Name of a name the body spells twice", strings.Replace(learn, `"name":"memory.learn"`, `"name":"memory.fetch","Name":"memory.learn"`, 1),
			append(without("Mcp-Name"), "Mcp-Name", "memory.fetch"), 400, -32020},
		{"base64 Mcp-Name", strings.Replace(learn, "zqmismatch", "zqbase64name", 1),
			append(without("Mcp-Name"), "Mcp-Name", "=?base64?"+base64.StdEncoding.EncodeToString([]byte("memory.learn"))+"?="), 200, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, out := post(t, url, tc.body, tc.headers...)
			a := decodeAnswer(t, out)
			code := 0
			if a.Error != nil {
				code = a.Error.Code
			}
			if resp.StatusCode != tc.status || code != tc.code {
				t.Errorf("%d %s; want %d with code %d", resp.StatusCode, out, tc.status, tc.code)
			}
			if tc.code == -32022 && len(a.Error.Data["supported"].([]any)) != 5 {
				t.Errorf("supported versions missing: %s", out)
			}
		})
	}
	if resp, out := post(t, url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, pingHeaders...); resp.StatusCode != http.StatusAccepted || out != "" {
		t.Errorf("notification: %d %q", resp.StatusCode, out)
	}
	body, headers = modernCall(6, "tools/call", "memory.fetch", `{"query":"zqmismatch"}`, "")
	if _, out := post(t, url, body, headers...); strings.Contains(out, "Never stored") {
		t.Errorf("a refused request was served: %s", out)
	}
}

// TestStatelessHTTPScopes: with no session to hold the caller, each
// request carries its own token, and gets what its scopes allow.
func TestStatelessHTTPScopes(t *testing.T) {
	ts, _, _ := mustServeWithTokens(t)
	url := ts.URL + "/mcp"
	list, listHeaders := modernCall(1, "tools/list", "", "", "Scoped")
	if resp, _ := post(t, url, list, listHeaders...); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("tools/list without a token: %d", resp.StatusCode)
	}
	tools := func(token string) (names []string, scope any) {
		_, out := post(t, url, list, append(listHeaders, bearer(token)...)...)
		a := decodeAnswer(t, out)
		for _, tl := range a.Result["tools"].([]any) {
			names = append(names, tl.(map[string]any)["name"].(string))
		}
		return names, a.Result["cacheScope"]
	}
	read, scope := tools(ciToken)
	all, _ := tools(laptopToken)
	if strings.Contains(strings.Join(read, ","), "memory.learn") || !strings.Contains(strings.Join(all, ","), "memory.learn") || len(read) >= len(all) {
		t.Errorf("read token offered %v; read+act token %v", read, all)
	}
	if scope != "private" {
		t.Errorf("a token's tool list has cacheScope %v", scope)
	}
	learn, learnHeaders := modernCall(2, "tools/call", "memory.learn", `{"text":"A read token cannot store this: zqscoped."}`, "Scoped")
	_, out := post(t, url, learn, append(learnHeaders, bearer(ciToken)...)...)
	if a := decodeAnswer(t, out); a.Error == nil || a.Error.Data["code"] != string(contract.CodeDenied) {
		t.Errorf("learn with a read token: %s", out)
	}
	if _, out := post(t, url, learn, append(learnHeaders, bearer(laptopToken)...)...); !strings.Contains(out, `"resultType":"complete"`) || strings.Contains(out, `"isError":true`) {
		t.Errorf("learn with an act token: %s", out)
	}
}

// TestStatelessHTTPWithOAuth: an OAuth access token holds per request as a
// bearer token does: its scopes pick the tools, its workspaces what is found.
func TestStatelessHTTPWithOAuth(t *testing.T) {
	e := mustServeOAuth(t)
	url := e.ts.URL + "/mcp"
	for ws, text := range map[string]string{"work": "the zqoauthword deploy key rotates monthly", "home": "the zqoauthword garden gate code"} {
		body, headers := modernCall(1, "tools/call", "memory.learn", `{"text":"`+text+`","workspace":"`+ws+`"}`, "Laptop")
		if _, out := post(t, url, body, append(headers, bearer(laptopToken)...)...); strings.Contains(out, `"isError":true`) || !strings.Contains(out, `"resultType":"complete"`) {
			t.Fatalf("learn in %s: %s", ws, out)
		}
	}
	access := e.signIn(t, oauth.Decision{Approve: true, Scopes: []string{"read"}, Workspaces: []string{"work"}})
	list, listHeaders := modernCall(2, "tools/list", "", "", "Claude")
	_, out := post(t, url, list, append(listHeaders, bearer(access)...)...)
	if !strings.Contains(out, `"memory.fetch"`) || strings.Contains(out, `"memory.learn"`) {
		t.Errorf("a read grant's tools: %s", out)
	}
	fetch, fetchHeaders := modernCall(3, "tools/call", "memory.fetch", `{"query":"zqoauthword"}`, "Claude")
	_, out = post(t, url, fetch, append(fetchHeaders, bearer(access)...)...)
	if !strings.Contains(out, "deploy key") || strings.Contains(out, "garden gate") {
		t.Errorf("a grant for work found: %s", out)
	}
}

package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/audit/sqlite"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
	"github.com/openhuman-go/openhuman-go/pkg/testbuf"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/httpapi"
	"github.com/openhuman-go/openhuman-go/services/gateway/mcpserver"
)

// The tokens of the authenticated server: ci may read, laptop may read and act.
const (
	ciToken     = "oh_ci-token-for-the-tests"
	laptopToken = "oh_laptop-token-for-the-tests"
)

// mustServeWithTokens runs the real system with the two tokens configured in
// its home's config.toml, behind a real listener, logging at debug into
// the returned buffer.
func mustServeWithTokens(t *testing.T) (ts *httptest.Server, home string, logs *testbuf.Buffer) {
	t.Helper()
	home = t.TempDir()
	file := fmt.Sprintf("[[auth.tokens]]\nname = \"ci\"\nsha256 = %q\nscopes = [\"read\"]\n\n[[auth.tokens]]\nname = \"laptop\"\nsha256 = %q\nscopes = [\"read\", \"act\"]\n",
		config.HashToken(ciToken), config.HashToken(laptopToken))
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(home, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	logs = &testbuf.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	gw := gatewaytest.StartIn(t, home, nil, gateway.Options{Observe: telemetry.ToolCall})
	mcp := mcpserver.New(gw, &mcpserver.Options{Version: "test", Instructions: gateway.Instructions, Logger: log})
	ts = httptest.NewUnstartedServer(nil)
	ts.Start()
	ts.Config.Handler = httpapi.New(gw, mcp, httpapi.Options{ListenAddr: ts.Listener.Addr().String(), Metrics: telemetry.MetricsHandler(),
		Tokens: cfg.Auth.Tokens, Logger: log})
	t.Cleanup(ts.Close)
	return ts, home, logs
}

func bearer(token string) []string { return []string{"Authorization", "Bearer " + token} }

func TestBearerAuth(t *testing.T) {
	ts, home, logs := mustServeWithTokens(t)
	rpc, mcp := ts.URL+"/rpc", ts.URL+"/mcp"
	learnRPC := `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_learn","params":{"text":"Only tokens that act can store this."}}`

	t.Run("refused", func(t *testing.T) {
		for _, tc := range []struct {
			name      string
			headers   []string
			challenge string
			want      string
		}{
			{"no header", nil, `Bearer realm="openhuman"`, "no Authorization header; send Authorization: Bearer <token>"},
			{"wrong token", bearer("oh_not-a-token-of-this-server"), `Bearer realm="openhuman", error="invalid_token"`, "the bearer token matches no token of this server"},
			{"a token's hash as the token", bearer(config.HashToken(ciToken)), `Bearer realm="openhuman", error="invalid_token"`, "matches no token"},
			{"basic scheme", []string{"Authorization", "Basic Y2k6c2VjcmV0"}, `Bearer realm="openhuman"`, "scheme is not Bearer"},
			{"bearer without a token", []string{"Authorization", "Bearer "}, `Bearer realm="openhuman"`, "holds no single bearer token"},
			{"two tokens", []string{"Authorization", "Bearer " + ciToken + " " + laptopToken}, `Bearer realm="openhuman"`, "holds no single bearer token"},
		} {
			for _, target := range []struct{ url, body string }{{rpc, learnRPC}, {mcp, initBody}} {
				t.Run(tc.name+" "+target.url[len(ts.URL):], func(t *testing.T) {
					resp, body := post(t, target.url, target.body, append(tc.headers, mcpHeaders...)...)
					if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != tc.challenge {
						t.Errorf("%d, WWW-Authenticate %q; want 401 and %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), tc.challenge)
					}
					var e struct {
						JSONRPC string
						Error   struct {
							Code    int
							Message string
						}
					}
					if json.Unmarshal([]byte(body), &e) != nil || e.JSONRPC != "2.0" || e.Error.Code != -32600 || !strings.Contains(e.Error.Message, tc.want) {
						t.Errorf("body %s, want a JSON-RPC error saying %q", body, tc.want)
					}
					if strings.Contains(body, `\u003c`) {
						t.Errorf("body %s: <token> escaped as HTML", body)
					}
					if resp.Header.Get("Mcp-Session-Id") != "" {
						t.Error("a refused initialize opened a session")
					}
				})
			}
		}
	})

	t.Run("open routes", func(t *testing.T) {
		for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
			resp, err := http.Get(ts.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("%s without a token: %d", path, resp.StatusCode)
			}
		}
		if resp, _ := post(t, ts.URL+"/elsewhere", "{}"); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("an unknown route without a token: %d, want 401 before 404", resp.StatusCode)
		}
	})

	t.Run("read token over /rpc", func(t *testing.T) {
		for _, body := range []string{
			learnRPC,
			`{"jsonrpc":"2.0","id":2,"method":"openhuman.memory_forget","params":{"ids":["abc"]}}`,
			`{"jsonrpc":"2.0","id":3,"method":"openhuman.approval_decide","params":{"id":"abc","approve":true}}`,
		} {
			resp, out := post(t, rpc, body, bearer(ciToken)...)
			if resp.StatusCode != 200 || !strings.Contains(out, `"code":-32003`) || !strings.Contains(out, `"code":"DENIED"`) ||
				!strings.Contains(out, "token `ci` has scope read;") || !strings.Contains(out, "needs scope act (make a token that has it: openhuman-core token new NAME --scopes read,act)") {
				t.Errorf("%s\n→ %d %s", body, resp.StatusCode, out)
			}
		}
		if _, out := post(t, rpc, `{"jsonrpc":"2.0","id":4,"method":"openhuman.memory_items_list","params":{}}`, bearer(ciToken)...); !strings.Contains(out, `"items":[]`) {
			t.Errorf("the read token's list: %s", out)
		}
	})

	t.Run("read token over /mcp", func(t *testing.T) {
		sid := initSession(t, mcp, ciToken)
		for _, call := range []string{
			`{"name":"memory.learn","arguments":{"text":"Only tokens that act can store this."}}`,
			`{"name":"memory.forget","arguments":{"ids":["abc"]}}`,
			`{"name":"agent.run_subagent","arguments":{"agent_id":"librarian","prompt":"store a note"}}`,
		} {
			_, out := post(t, mcp, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":`+call+`}`, append(withSession(sid), bearer(ciToken)...)...)
			if !strings.Contains(out, `"code":-32602`) || !strings.Contains(out, "token `ci` has scope read;") || !strings.Contains(out, `"code":"DENIED"`) {
				t.Errorf("%s\n→ %s", call, out)
			}
		}
		_, out := post(t, mcp, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory.list","arguments":{}}}`, append(withSession(sid), bearer(ciToken)...)...)
		if !strings.Contains(out, `"items":[]`) {
			t.Errorf("refused calls stored something, or the read token cannot list: %s", out)
		}
		// The session is ci's: laptop's token can neither use nor end it.
		if resp, _ := post(t, mcp, `{"jsonrpc":"2.0","id":4,"method":"ping"}`, append(withSession(sid), bearer(laptopToken)...)...); resp.StatusCode != http.StatusNotFound {
			t.Errorf("another token's session: %d, want 404", resp.StatusCode)
		}
		req, _ := http.NewRequest(http.MethodDelete, mcp, nil)
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Authorization", "Bearer "+laptopToken)
		if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusNotFound {
			t.Errorf("another token's DELETE: %v %v, want 404", resp, err)
		} else {
			resp.Body.Close()
		}
		if resp, _ := post(t, mcp, `{"jsonrpc":"2.0","id":5,"method":"ping"}`, append(withSession(sid), bearer(ciToken)...)...); resp.StatusCode != 200 {
			t.Errorf("ci's session after another token's DELETE: %d", resp.StatusCode)
		}
	})

	t.Run("the icon needs no token", func(t *testing.T) {
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Get(ts.URL + "/favicon.ico")
		if err != nil || resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/console/assets/icon.svg" {
			t.Fatalf("/favicon.ico: %v %v", resp, err)
		}
		resp.Body.Close()
	})

	t.Run("tools a token can use", func(t *testing.T) {
		names := func(token string) []string {
			sid := initSession(t, mcp, token)
			_, out := post(t, mcp, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, append(withSession(sid), bearer(token)...)...)
			var list struct {
				Result struct{ Tools []struct{ Name string } }
			}
			if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Result.Tools) == 0 {
				t.Fatalf("tools/list: %v %s", err, out)
			}
			var got []string
			for _, tool := range list.Result.Tools {
				got = append(got, tool.Name)
			}
			return got
		}
		read, all := names(ciToken), names(laptopToken)
		for _, w := range []string{"memory.learn", "memory.forget", "agent.run_subagent"} {
			if slices.Contains(read, w) {
				t.Errorf("a read-only token is offered %s: %v", w, read)
			}
			if !slices.Contains(all, w) {
				t.Errorf("a token that may act is not offered %s: %v", w, all)
			}
		}
		for _, w := range []string{"memory.fetch", "memory.recall", "memory.list"} {
			if !slices.Contains(read, w) {
				t.Errorf("a read-only token is not offered %s: %v", w, read)
			}
		}
		// Calling one anyway is refused as the reference refuses a policy
		// denial, naming the code and the scope.
		sid := initSession(t, mcp, ciToken)
		_, out := post(t, mcp, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory.learn","arguments":{"text":"a read token cannot store this"}}}`,
			append(withSession(sid), bearer(ciToken)...)...)
		if !strings.Contains(out, `"code":-32602`) || !strings.Contains(out, `"code":"DENIED"`) || !strings.Contains(out, `"scope":"act"`) {
			t.Errorf("memory.learn with a read-only token: %s", out)
		}
	})

	t.Run("act token", func(t *testing.T) {
		if _, out := post(t, rpc, learnRPC, bearer(laptopToken)...); !strings.Contains(out, `"replayed":false`) {
			t.Fatalf("learn over /rpc: %s", out)
		}
		_, out := post(t, rpc, `{"jsonrpc":"2.0","id":2,"method":"openhuman.memory_fetch","params":{"query":"tokens that act"}}`, bearer(laptopToken)...)
		if !strings.Contains(out, `"provenance":"http:laptop"`) {
			t.Errorf("provenance of the /rpc learning: %s", out)
		}
		_, out = post(t, rpc, `{"jsonrpc":"2.0","id":3,"method":"openhuman.approval_decide","params":{"id":"abc","approve":true}}`, bearer(laptopToken)...)
		if strings.Contains(out, "DENIED") || !strings.Contains(out, `"code":"NOT_FOUND"`) {
			t.Errorf("approval.decide with scope act is not refused, and finds no such approval: %s", out)
		}
		sid := initSession(t, mcp, laptopToken)
		_, out = post(t, mcp, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory.learn","arguments":{"text":"MCP over HTTP with a token can learn."}}}`,
			append(withSession(sid), bearer(laptopToken)...)...)
		if !strings.Contains(out, `\"replayed\": false`) {
			t.Fatalf("learn over /mcp: %s", out)
		}
		_, out = post(t, mcp, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory.fetch","arguments":{"query":"MCP over HTTP with a token"}}}`,
			append(withSession(sid), bearer(laptopToken)...)...)
		if !strings.Contains(out, "mcp:http-client") {
			t.Errorf("provenance of the /mcp learning: %s", out)
		}
	})

	t.Run("the audit names the token", func(t *testing.T) {
		l, err := sqlite.Open(filepath.Join(home, "audit.db"), 0)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		rows, err := l.Recent(context.Background(), 100, false)
		if err != nil {
			t.Fatal(err)
		}
		byClient := map[string][]string{}
		for _, r := range rows {
			byClient[r.Client] = append(byClient[r.Client], fmt.Sprintf("%s/%s/%v", r.Token, r.ToolName, r.Success))
		}
		want := map[string]string{
			"http:laptop":     "[laptop/approval.decide/false laptop/memory.learn/true]",
			"mcp:http-client": "[laptop/memory.learn/true ci/memory.learn/false ci/agent.run_subagent/false ci/memory.forget/false ci/memory.learn/false]",
			"http:ci":         "[ci/approval.decide/false ci/memory.forget/false ci/memory.learn/false]",
		}
		for client, w := range want {
			if got := fmt.Sprint(byClient[client]); got != w {
				t.Errorf("%s: %s, want %s", client, got, w)
			}
		}
	})

	t.Run("no token in the logs", func(t *testing.T) {
		out := logs.String()
		if !strings.Contains(out, "request refused: not authenticated") || !strings.Contains(out, "token=laptop") {
			t.Fatalf("the log lacks the refusals or the authenticated calls:\n%s", out)
		}
		for _, secret := range []string{ciToken, laptopToken, config.HashToken(ciToken), config.HashToken(laptopToken), "oh_not-a-token", "Y2k6c2VjcmV0"} {
			if strings.Contains(out, secret) {
				t.Errorf("the log holds %q", secret)
			}
		}
	})
}

// initSession opens an MCP session with token and returns its id.
func initSession(t *testing.T, url, token string) string {
	t.Helper()
	resp, body := post(t, url, initBody, append(mcpHeaders, bearer(token)...)...)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	return sid
}

func TestCheckListen(t *testing.T) {
	tokens := []config.Token{{Name: "ci"}}
	for _, tc := range []struct {
		addr   string
		tokens []config.Token
		ok     bool
	}{
		{"127.0.0.1:9300", nil, true},
		{"[::1]:9300", nil, true},
		{"localhost:9300", nil, true},
		{"0.0.0.0:9400", nil, false},
		{"[::]:9400", nil, false},
		{":9400", nil, false},
		{"192.168.1.20:9400", nil, false},
		{"0.0.0.0:9400", tokens, true},
	} {
		err := httpapi.CheckListen(tc.addr, tc.tokens)
		if (err == nil) != tc.ok {
			t.Errorf("%s with %d tokens: %v", tc.addr, len(tc.tokens), err)
		}
		if err != nil && (!strings.Contains(err.Error(), "openhuman-core token new NAME") || !strings.Contains(err.Error(), "OPENHUMAN_API_TOKEN")) {
			t.Errorf("the refusal does not say how to make a token: %v", err)
		}
	}
}

package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/httpapi"
	"github.com/openhuman-go/openhuman-go/services/gateway/mcpserver"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth/sqlite"
)

// oauthEdge is the real system behind the edge with the built-in
// authorization server on and the laptop token configured.
type oauthEdge struct {
	ts  *httptest.Server
	srv *oauth.Server
}

func mustServeOAuth(t *testing.T) *oauthEdge {
	t.Helper()
	home := t.TempDir()
	gw := gatewaytest.StartIn(t, home, nil, gateway.Options{Observe: telemetry.ToolCall})
	mcp := mcpserver.New(gw, &mcpserver.Options{Version: "test", Instructions: gateway.Instructions})
	store, err := sqlite.Open(filepath.Join(home, "oauth.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	ts := httptest.NewUnstartedServer(nil)
	ts.Start()
	t.Cleanup(ts.Close)
	srv := oauth.New(oauth.Options{PublicURL: ts.URL, Store: store, Registration: true})
	tokens := []config.Token{{Name: "laptop", SHA256: config.HashToken(laptopToken), Scopes: []string{"read", "act"}}}
	ts.Config.Handler = httpapi.New(gw, mcp, httpapi.Options{ListenAddr: ts.Listener.Addr().String(), Tokens: tokens,
		OAuth: &httpapi.OAuth{Resource: srv.Resource(), Issuers: []string{srv.Issuer()}, Verify: srv.Verify, Server: srv.Handler()}})
	return &oauthEdge{ts: ts, srv: srv}
}

// signIn runs a client's whole sign-in through the edge, approved as d,
// and returns its access token.
func (e *oauthEdge) signIn(t *testing.T, d oauth.Decision) string {
	t.Helper()
	_, body := post(t, e.ts.URL+"/oauth/register", `{"client_name":"Claude","redirect_uris":["http://127.0.0.1:9/cb"],"token_endpoint_auth_method":"none"}`)
	var reg map[string]any
	_ = json.Unmarshal([]byte(body), &reg)
	client, _ := reg["client_id"].(string)
	verifier := oauth2.GenerateVerifier()
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {"http://127.0.0.1:9/cb"}, "resource": {e.ts.URL + "/mcp"},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"}, "scope": {"read act"}}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(e.ts.URL + "/oauth/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	back, err := e.srv.Decide(context.Background(), loc.Query().Get("request"), oauth.Identity{Name: "laptop", Scopes: []string{"read", "act"}}, d)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(back)
	resp, err = http.PostForm(e.ts.URL+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {u.Query().Get("code")},
		"client_id": {client}, "redirect_uri": {"http://127.0.0.1:9/cb"}, "code_verifier": {verifier}, "resource": {e.ts.URL + "/mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	var tok map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	access, _ := tok["access_token"].(string)
	if access == "" {
		t.Fatalf("token answer %v", tok)
	}
	return access
}

func initialize(t *testing.T, base string, headers ...string) (*http.Response, string) {
	t.Helper()
	return post(t, base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-ai","version":"1"}}}`, headers...)
}

func TestOAuthAtTheEdge(t *testing.T) {
	e := mustServeOAuth(t)
	t.Run("a client without a token learns where to sign in", func(t *testing.T) {
		resp, body := initialize(t, e.ts.URL)
		want := `Bearer resource_metadata="` + e.ts.URL + `/.well-known/oauth-protected-resource"`
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), want) || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `scope="read act"`) {
			t.Fatalf("%d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
		for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
			resp, err := http.Get(e.ts.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&m)
			resp.Body.Close()
			if m["resource"] != e.ts.URL+"/mcp" || m["authorization_servers"].([]any)[0] != e.ts.URL {
				t.Errorf("%s: %v", path, m)
			}
		}
		resp, err := http.Get(e.ts.URL + "/.well-known/oauth-authorization-server")
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("the server metadata behind the token check: %v %v", err, resp.Status)
		}
	})
	t.Run("a wrong token is invalid_token", func(t *testing.T) {
		resp, _ := initialize(t, e.ts.URL, bearer("ohat_not-a-token")...)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
			t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	})
	t.Run("scopes and workspaces hold as a bearer token's", func(t *testing.T) {
		for ws, text := range map[string]string{"work": "the zqworkword deploy key rotates monthly", "home": "the zqworkword garden gate code"} {
			if _, body := post(t, e.ts.URL+"/rpc", `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_learn","params":{"text":"`+text+`","workspace":"`+ws+`"}}`, bearer(laptopToken)...); !strings.Contains(body, `"result"`) {
				t.Fatal(body)
			}
		}
		access := e.signIn(t, oauth.Decision{Approve: true, Scopes: []string{"read"}, Workspaces: []string{"work"}})
		resp, _ := initialize(t, e.ts.URL, bearer(access)...)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("initialize with the access token: %d", resp.StatusCode)
		}
		sess := resp.Header.Get("Mcp-Session-Id")
		h := append(bearer(access), "Mcp-Session-Id", sess)
		_, body := post(t, e.ts.URL+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory.fetch","arguments":{"query":"zqworkword"}}}`, h...)
		if !strings.Contains(body, "deploy key") || strings.Contains(body, "garden gate") {
			t.Errorf("a grant of workspace work fetched: %s", body)
		}
		_, body = post(t, e.ts.URL+"/mcp", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory.learn","arguments":{"text":"not allowed","workspace":"work"}}}`, h...)
		if !strings.Contains(body, "act") || !strings.Contains(body, "error") {
			t.Errorf("a read-only grant learned: %s", body)
		}
		// The session is the grant's: another grant's token cannot use it.
		other := e.signIn(t, oauth.Decision{Approve: true, Scopes: []string{"read", "act"}})
		resp, _ = post(t, e.ts.URL+"/mcp", `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, append(bearer(other), "Mcp-Session-Id", sess)...)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("another grant's token used the session: %d", resp.StatusCode)
		}
		// The token is for /mcp: /rpc takes configured tokens only.
		resp, body = post(t, e.ts.URL+"/rpc", `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_items_list","params":{}}`, bearer(access)...)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "an OAuth access token (ohat_…) is taken at /mcp only") {
			t.Errorf("/rpc with an access token for /mcp: %d %s", resp.StatusCode, body)
		}
	})
	t.Run("configured tokens keep working at /mcp and /rpc", func(t *testing.T) {
		if resp, _ := initialize(t, e.ts.URL, bearer(laptopToken)...); resp.StatusCode != http.StatusOK {
			t.Errorf("/mcp with the laptop token: %d", resp.StatusCode)
		}
		if resp, _ := post(t, e.ts.URL+"/rpc", `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_items_list","params":{}}`, bearer(laptopToken)...); resp.StatusCode != http.StatusOK {
			t.Errorf("/rpc with the laptop token: %d", resp.StatusCode)
		}
		resp, _ := post(t, e.ts.URL+"/rpc", `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_items_list","params":{}}`)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `realm="openhuman"`) {
			t.Errorf("/rpc without a token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	})
}

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

// TestOAuthAcrossReplicas: two gateway replicas behind one public URL,
// each with its own MCP server and authorization server over one store of
// grants, as replicas behind a load balancer are. A client signs in on
// one, exchanges its code and refreshes on the other, and its stateless
// MCP 2026-07-28 calls, sent to each in turn, all succeed: nothing a call
// needs lives in one replica.
func TestOAuthAcrossReplicas(t *testing.T) {
	home := t.TempDir()
	gw := gatewaytest.StartIn(t, home, nil, gateway.Options{Observe: telemetry.ToolCall})
	const public = "https://memory.example.com"
	tokens := []config.Token{{Name: "laptop", SHA256: config.HashToken(laptopToken), Scopes: []string{"read", "act"}}}
	type replica struct {
		ts  *httptest.Server
		srv *oauth.Server
	}
	start := func() replica {
		store, err := sqlite.Open(filepath.Join(home, "oauth.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		srv := oauth.New(oauth.Options{PublicURL: public, Store: store, Registration: true,
			Tokens: []oauth.BearerToken{{Name: "laptop", SHA256: config.HashToken(laptopToken), Scopes: []string{"read", "act"}}}})
		mcp := mcpserver.New(gw, &mcpserver.Options{Version: "test", Instructions: gateway.Instructions})
		ts := httptest.NewServer(nil)
		t.Cleanup(ts.Close)
		ts.Config.Handler = httpapi.New(gw, mcp, httpapi.Options{ListenAddr: ts.Listener.Addr().String(), Tokens: tokens,
			OAuth: &httpapi.OAuth{Resource: srv.Resource(), Issuers: []string{srv.Issuer()}, Verify: srv.Verify, Server: srv.Handler()}})
		return replica{ts, srv}
	}
	r := []replica{start(), start()}

	// Signed in on the first replica, the code exchanged on the second.
	_, body := post(t, r[0].ts.URL+"/oauth/register", `{"client_name":"Claude","redirect_uris":["http://127.0.0.1:9/cb"],"token_endpoint_auth_method":"none"}`)
	var reg struct {
		ClientID string `json:"client_id"`
	}
	if err := json.Unmarshal([]byte(body), &reg); err != nil || reg.ClientID == "" {
		t.Fatalf("registration: %s", body)
	}
	verifier := oauth2.GenerateVerifier()
	q := url.Values{"response_type": {"code"}, "client_id": {reg.ClientID}, "redirect_uri": {"http://127.0.0.1:9/cb"}, "resource": {public + "/mcp"},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"}, "scope": {"read act"}}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(r[0].ts.URL + "/oauth/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	back, err := r[0].srv.Decide(context.Background(), loc.Query().Get("request"), oauth.Identity{Name: "laptop", Scopes: []string{"read", "act"}},
		oauth.Decision{Approve: true, Scopes: []string{"read", "act"}})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(back)
	tok := exchange(t, r[1].ts.URL, url.Values{"grant_type": {"authorization_code"}, "code": {u.Query().Get("code")},
		"client_id": {reg.ClientID}, "redirect_uri": {"http://127.0.0.1:9/cb"}, "code_verifier": {verifier}, "resource": {public + "/mcp"}})

	call := func(i int, access, method, name, args string) string {
		t.Helper()
		body, headers := modernCall(i, method, name, args, "Claude")
		resp, out := post(t, r[i%2].ts.URL+"/mcp", body, append(headers, bearer(access)...)...)
		var answer struct {
			Error  json.RawMessage `json:"error"`
			Result struct {
				IsError    bool   `json:"isError"`
				ResultType string `json:"resultType"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(out), &answer); err != nil || resp.StatusCode != http.StatusOK || answer.Error != nil ||
			answer.Result.IsError || answer.Result.ResultType != "complete" {
			t.Fatalf("call %d (%s %s) on replica %d: %d %.500s", i, method, name, i%2, resp.StatusCode, out)
		}
		return out
	}
	call(0, tok.Access, "tools/list", "", "")
	call(1, tok.Access, "tools/call", "memory.learn", `{"text":"Replicas share the grants: zqreplicagrant."}`)
	if out := call(2, tok.Access, "tools/call", "memory.fetch", `{"query":"zqreplicagrant"}`); !strings.Contains(out, "zqreplicagrant") || !strings.Contains(out, "mcp:claude") {
		t.Errorf("the fetch on the other replica: %s", out)
	}
	// Refreshed on the first replica, the new token used on the second.
	fresh := exchange(t, r[0].ts.URL, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.Refresh}, "client_id": {reg.ClientID}, "resource": {public + "/mcp"}})
	for i := 3; i < 7; i++ {
		call(i, fresh.Access, "tools/call", "memory.recall", `{"question":"What do replicas share?"}`)
	}
}

type tokenPair struct{ Access, Refresh string }

// exchange posts a token request to base's token endpoint.
func exchange(t *testing.T, base string, form url.Values) tokenPair {
	t.Helper()
	resp, err := http.PostForm(base+"/oauth/token", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		Access  string `json:"access_token"`
		Refresh string `json:"refresh_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.Access == "" {
		t.Fatalf("%s at %s: %d %v", form.Get("grant_type"), base, resp.StatusCode, err)
	}
	return tokenPair{tok.Access, tok.Refresh}
}

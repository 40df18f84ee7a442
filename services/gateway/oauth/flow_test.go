package oauth_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
)

func TestMetadata(t *testing.T) {
	e := serve(t, mustOpenStore(t), nil)
	resp, err := http.Get(e.url + oauth.PathServerMetadata)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	decode(t, resp, &m)
	for k, want := range map[string]any{"issuer": e.url, "authorization_endpoint": e.url + "/oauth/authorize", "token_endpoint": e.url + "/oauth/token",
		"registration_endpoint": e.url + "/oauth/register", "revocation_endpoint": e.url + "/oauth/revoke",
		"client_id_metadata_document_supported": true, "authorization_response_iss_parameter_supported": true} {
		if m[k] != want {
			t.Errorf("%s = %v, want %v", k, m[k], want)
		}
	}
	if got := m["code_challenge_methods_supported"].([]any); len(got) != 1 || got[0] != "S256" {
		t.Errorf("code challenge methods %v, want S256 alone", got)
	}
	if _, ok := m["jwks_uri"]; ok {
		t.Error("an empty jwks_uri is in the document")
	}
	off := serve(t, mustOpenStore(t), func(o *oauth.Options) { o.Registration = false })
	resp, _ = http.Get(off.url + oauth.PathServerMetadata)
	m = nil
	decode(t, resp, &m)
	if _, ok := m["registration_endpoint"]; ok {
		t.Error("registration turned off is still advertised")
	}
	status, out, _ := off.postJSON(oauth.PathRegister, `{"redirect_uris":["https://app.example/cb"]}`)
	wantError(t, status, out, http.StatusForbidden, "access_denied")
}

// TestFlow: register, authorize, consent, exchange, use, refresh, revoke.
func TestFlow(t *testing.T) {
	e := serve(t, mustOpenStore(t), nil)
	client := e.register("Claude", "https://claude.ai/api/mcp/auth_callback")
	a := e.newAuthorization(client, "https://claude.ai/api/mcp/auth_callback")
	p, err := e.srv.Request(context.Background(), e.consent(a))
	if err != nil || p.ClientName != "Claude" || p.RedirectHost != "claude.ai" || p.LoopbackOnly || !slices.Equal(p.Scopes, []string{"read", "act"}) {
		t.Fatalf("pending %+v %v", p, err)
	}
	tok := e.tokens(a, oauth.Decision{Approve: true, Scopes: []string{"read"}, Workspaces: []string{"work"}})
	if tok["token_type"] != "Bearer" || tok["scope"] != "read" || tok["expires_in"] != float64(900) || tok["refresh_token"] == nil {
		t.Fatalf("token answer %v", tok)
	}
	who, err := e.verify(tok["access_token"].(string))
	if err != nil || !slices.Equal(who.Scopes, []string{"read"}) || !slices.Equal(who.Workspaces, []string{"work"}) || !strings.HasPrefix(who.Name, "oauth:claude:") {
		t.Fatalf("verified %+v %v", who, err)
	}
	status, next := e.refresh(client, tok["refresh_token"].(string))
	if status != http.StatusOK || next["access_token"] == tok["access_token"] || next["refresh_token"] == tok["refresh_token"] {
		t.Fatalf("refresh %d %v", status, next)
	}
	if again, err := e.verify(next["access_token"].(string)); err != nil || again.Name != who.Name {
		t.Fatalf("the refreshed token %+v %v", again, err)
	}
	grants, _ := e.srv.Grants(context.Background())
	if len(grants) != 1 || grants[0].Owner != "owner" || grants[0].ClientName != "Claude" {
		t.Fatalf("grants %+v", grants)
	}
	status, _ = e.postForm(oauth.PathRevoke, url.Values{"token": {next["refresh_token"].(string)}, "client_id": {client}})
	if status != http.StatusOK {
		t.Fatalf("revoke %d", status)
	}
	if _, err := e.verify(next["access_token"].(string)); !errors.Is(err, oauth.ErrInvalidToken) {
		t.Errorf("an access token of a revoked grant: %v", err)
	}
	status, _ = e.postForm(oauth.PathRevoke, url.Values{"token": {"ohrt_nothing"}, "client_id": {client}})
	if status != http.StatusOK {
		t.Errorf("revoking an unknown token %d, want 200 (RFC 7009)", status)
	}
}

func TestRevokeInTheConsole(t *testing.T) {
	e := serve(t, mustOpenStore(t), nil)
	client := e.register("VS Code", "http://127.0.0.1:33418/")
	a := e.newAuthorization(client, "http://127.0.0.1:33418/")
	tok := e.tokens(a, both())
	grants, _ := e.srv.Grants(context.Background())
	if err := e.srv.Revoke(context.Background(), grants[0].ID, "owner"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.verify(tok["access_token"].(string)); !errors.Is(err, oauth.ErrInvalidToken) {
		t.Errorf("a revoked grant's access token: %v", err)
	}
	// Its client is gone with it: invalid_client, 401, so it registers anew.
	status, out := e.refresh(client, tok["refresh_token"].(string))
	wantError(t, status, out, http.StatusUnauthorized, "invalid_client")
	if err := e.srv.Revoke(context.Background(), grants[0].ID, "owner"); contract.ErrorCode(err) != contract.CodeNotFound {
		t.Errorf("revoking twice: %v", err)
	}
}

func TestDeny(t *testing.T) {
	e := serve(t, mustOpenStore(t), nil)
	client := e.register("ChatGPT", "https://chatgpt.com/connector_platform_oauth_redirect")
	a := e.newAuthorization(client, "https://chatgpt.com/connector_platform_oauth_redirect")
	id := e.consent(a)
	back, err := e.srv.Decide(context.Background(), id, owner, oauth.Decision{Approve: false})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(back)
	if u.Host != "chatgpt.com" || u.Query().Get("error") != "access_denied" || u.Query().Get("state") != a.state || u.Query().Get("code") != "" {
		t.Fatalf("sent back to %s", back)
	}
	// The consent page, reloaded or reached by Back, asks no more.
	if _, err := e.srv.Request(context.Background(), id); contract.ErrorCode(err) != contract.CodeNotFound {
		t.Errorf("an answered request is still pending: %v", err)
	}
	if _, err := e.srv.Decide(context.Background(), id, owner, oauth.Decision{Approve: true, Scopes: []string{"read"}}); err == nil {
		t.Error("an answered request was answered again")
	}
}

func TestExpiredToken(t *testing.T) {
	e := serve(t, mustOpenStore(t), nil)
	client := e.register("Claude", "https://claude.ai/cb")
	tok := e.tokens(e.newAuthorization(client, "https://claude.ai/cb"), both())
	e.clock.add(16 * time.Minute)
	_, err := e.verify(tok["access_token"].(string))
	if !errors.Is(err, oauth.ErrInvalidToken) || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("a token past its 15 minutes: %v", err)
	}
	// Its refresh token still renews it.
	if status, out := e.refresh(client, tok["refresh_token"].(string)); status != http.StatusOK {
		t.Fatalf("refresh %d %v", status, out)
	}
}

// expiries wraps a real store, noting each record's end.
type expiries struct {
	oauth.Store
	ends map[string]time.Time
}

func (e *expiries) Put(ctx context.Context, kind, key string, v []byte, end time.Time) error {
	e.ends[kind+"/"+key] = end
	return e.Store.Put(ctx, kind, key, v, end)
}

// TestUngrantedClientsAreForgotten: a registered client lives a day until
// it is granted something, then for good.
func TestUngrantedClientsAreForgotten(t *testing.T) {
	store := &expiries{Store: mustOpenStore(t), ends: map[string]time.Time{}}
	e := serve(t, store, nil)
	client := e.register("App", "https://app.example/cb")
	if end := store.ends["client/"+client]; end.Sub(e.clock.now()) < 23*time.Hour || end.Sub(e.clock.now()) > 25*time.Hour {
		t.Fatalf("a new client ends at %v, want in a day", end)
	}
	e.tokens(e.newAuthorization(client, "https://app.example/cb"), both())
	if raw, ok, _ := store.Get(context.Background(), "client", client); !ok || !strings.Contains(string(raw), `"granted":true`) {
		t.Fatalf("the granted client %s %v", raw, ok)
	}
}

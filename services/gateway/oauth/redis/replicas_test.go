package redis

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn/redistest"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
)

// TestReplicasShareGrants: two gateway replicas on one Redis: a client
// registered and granted on one is served by the other, and a grant
// revoked on one ends its tokens on the other at once.
func TestReplicasShareGrants(t *testing.T) {
	prefix := redistest.Prefix(t)
	c, err := redisconn.New(redistest.URL(), prefix, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	const public = "https://memory.example.com"
	a := oauth.New(oauth.Options{PublicURL: public, Store: New(c), Registration: true})
	b := oauth.New(oauth.Options{PublicURL: public, Store: New(c), Registration: true})
	do := func(s *oauth.Server, r *http.Request) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, r)
		return rec
	}
	form := func(path string, v url.Values) *http.Request {
		r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(v.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return r
	}
	rec := do(a, httptest.NewRequest(http.MethodPost, oauth.PathRegister, strings.NewReader(`{"client_name":"Claude","redirect_uris":["https://claude.ai/cb"],"token_endpoint_auth_method":"none"}`)))
	var reg map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &reg)
	client, _ := reg["client_id"].(string)
	verifier := oauth2.GenerateVerifier()
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {"https://claude.ai/cb"}, "code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"}}
	rec = do(b, httptest.NewRequest(http.MethodGet, oauth.PathAuthorize+"?"+q.Encode(), nil))
	loc, _ := url.Parse(rec.Header().Get("Location"))
	if rec.Code != http.StatusSeeOther || loc == nil {
		t.Fatalf("authorize on the other replica: %d %s", rec.Code, rec.Body.String())
	}
	back, err := a.Decide(context.Background(), loc.Query().Get("request"), oauth.Identity{Name: "owner", Scopes: []string{"read", "act"}}, oauth.Decision{Approve: true, Scopes: []string{"read"}})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(back)
	rec = do(b, form(oauth.PathToken, url.Values{"grant_type": {"authorization_code"}, "code": {u.Query().Get("code")}, "client_id": {client},
		"redirect_uri": {"https://claude.ai/cb"}, "code_verifier": {verifier}}))
	var tok map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &tok)
	access, _ := tok["access_token"].(string)
	if _, err := a.Verify(context.Background(), access); err != nil {
		t.Fatalf("a token issued by one replica, checked by the other: %v (%s)", err, rec.Body.String())
	}
	grants, err := a.Grants(context.Background())
	if err != nil || len(grants) != 1 {
		t.Fatalf("grants %v %v", grants, err)
	}
	if err := b.Revoke(context.Background(), grants[0].ID, "owner"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Verify(context.Background(), access); !errors.Is(err, oauth.ErrInvalidToken) {
		t.Errorf("a grant revoked on one replica still works on the other: %v", err)
	}
}

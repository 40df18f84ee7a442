package oauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn/redistest"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
	oauthredis "github.com/openhuman-go/openhuman-go/services/gateway/oauth/redis"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth/sqlite"
)

// clock is a settable time for the server.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// env is a running authorization server on a real store.
type env struct {
	t   *testing.T
	srv *oauth.Server
	url string
	// public is its public URL: url unless set otherwise, as for
	// replicas behind one address.
	public string
	clock  *clock
	store  oauth.Store
}

func mustOpenStore(t *testing.T) oauth.Store {
	t.Helper()
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "oauth.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// eachStore runs f with records of each kind, new to it: in a SQLite
// file, and in the real Redis under a prefix of their own, removed when
// t ends. Each call of open is another handle on the same records, as a
// gateway restarted, or a replica, has.
func eachStore(t *testing.T, f func(t *testing.T, open func() oauth.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "oauth.db")
		f(t, func() oauth.Store {
			s, err := sqlite.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		})
	})
	t.Run("redis", func(t *testing.T) {
		prefix := redistest.Prefix(t)
		f(t, func() oauth.Store {
			c, err := redisconn.New(redistest.URL(), prefix, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			return oauthredis.New(c)
		})
	})
}

// The bearer tokens configured on the servers of these tests, which the
// identities deciding on the consent page sign in with.
var (
	ownerToken  = oauth.BearerToken{Name: "owner", SHA256: sha256Hex("oh_owner"), Scopes: []string{"read", "act"}}
	readerToken = oauth.BearerToken{Name: "reader", SHA256: sha256Hex("oh_reader"), Scopes: []string{"read"}, Workspaces: []string{"work"}}
)

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// serve starts a server on a loopback port, its public URL that address.
func serve(t *testing.T, store oauth.Store, tweak func(*oauth.Options)) *env {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	c := &clock{t: time.Now()}
	opts := oauth.Options{PublicURL: base, Store: store, Registration: true, Now: c.now, Tokens: []oauth.BearerToken{ownerToken, readerToken}}
	if tweak != nil {
		tweak(&opts)
	}
	srv := oauth.New(opts)
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Listener.Close()
	hs.Listener = ln
	hs.Start()
	t.Cleanup(hs.Close)
	return &env{t: t, srv: srv, url: base, public: strings.TrimSuffix(opts.PublicURL, "/"), clock: c, store: store}
}

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// postForm posts form to path and decodes the JSON answer.
func (e *env) postForm(path string, form url.Values) (int, map[string]any) {
	e.t.Helper()
	resp, err := http.PostForm(e.url+path, form)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return resp.StatusCode, out
}

func (e *env) postJSON(path, body string) (int, map[string]any, http.Header) {
	e.t.Helper()
	resp, err := http.Post(e.url+path, "application/json", strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return resp.StatusCode, out, resp.Header
}

// register registers a public client sending the person back to redirect.
func (e *env) register(name, redirect string) string {
	e.t.Helper()
	status, out, _ := e.postJSON(oauth.PathRegister, `{"client_name":"`+name+`","redirect_uris":["`+redirect+`"],"token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"]}`)
	if status != http.StatusCreated {
		e.t.Fatalf("registering %s: %d %v", name, status, out)
	}
	return out["client_id"].(string)
}

// authorization is an authorization request's parameters.
type authorization struct {
	client, redirect, state, scope, resource string
	verifier                                 string
}

func (e *env) newAuthorization(client, redirect string) *authorization {
	return &authorization{client: client, redirect: redirect, state: "st-" + oauth2.GenerateVerifier()[:12], scope: "read act",
		resource: e.public + "/mcp", verifier: oauth2.GenerateVerifier()}
}

func (a *authorization) query() url.Values {
	q := url.Values{"response_type": {"code"}, "client_id": {a.client}, "redirect_uri": {a.redirect}, "state": {a.state},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(a.verifier)}, "code_challenge_method": {"S256"}, "scope": {a.scope}}
	if a.resource != "" {
		q.Set("resource", a.resource)
	}
	return q
}

// authorize sends q to the authorization endpoint and returns its answer,
// not following the redirect.
func (e *env) authorize(q url.Values) (*http.Response, string) {
	e.t.Helper()
	resp, err := noRedirect.Get(e.url + oauth.PathAuthorize + "?" + q.Encode())
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// consent authorizes a and returns the request id the consent page gets.
func (e *env) consent(a *authorization) string {
	e.t.Helper()
	resp, body := e.authorize(a.query())
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || loc == nil || loc.Path != "/console/oauth/consent" {
		e.t.Fatalf("authorize: %d %s %s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	return loc.Query().Get("request")
}

var owner = oauth.Identity{Name: "owner", Scopes: []string{"read", "act"}}

// code runs a to a code, approved by who for d.
func (e *env) code(a *authorization, who oauth.Identity, d oauth.Decision) string {
	e.t.Helper()
	back, err := e.srv.Decide(context.Background(), e.consent(a), who, d)
	if err != nil {
		e.t.Fatal(err)
	}
	u, _ := url.Parse(back)
	if u.Query().Get("state") != a.state || u.Query().Get("iss") != e.public {
		e.t.Fatalf("sent back to %s", back)
	}
	return u.Query().Get("code")
}

func (e *env) exchange(a *authorization, code string) (int, map[string]any) {
	e.t.Helper()
	return e.postForm(oauth.PathToken, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {a.client},
		"redirect_uri": {a.redirect}, "code_verifier": {a.verifier}, "resource": {e.public + "/mcp"}})
}

// tokens runs a whole authorization and returns its token response.
func (e *env) tokens(a *authorization, d oauth.Decision) map[string]any {
	e.t.Helper()
	status, out := e.exchange(a, e.code(a, owner, d))
	if status != http.StatusOK {
		e.t.Fatalf("exchange: %d %v", status, out)
	}
	return out
}

func (e *env) refresh(client, refresh string) (int, map[string]any) {
	e.t.Helper()
	return e.postForm(oauth.PathToken, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {client}})
}

func (e *env) verify(token string) (oauth.Identity, error) {
	return e.srv.Verify(context.Background(), token)
}

func both() oauth.Decision { return oauth.Decision{Approve: true, Scopes: []string{"read", "act"}} }

// wantError checks an OAuth error answer.
func wantError(t *testing.T, status int, out map[string]any, wantStatus int, code string) {
	t.Helper()
	if status != wantStatus || out["error"] != code {
		t.Fatalf("answer %d %v, want %d %s", status, out, wantStatus, code)
	}
	if d, _ := out["error_description"].(string); d == "" {
		t.Errorf("the %s error says nothing of why", code)
	}
}

func decode(t *testing.T, resp *http.Response, v any) {
	t.Helper()
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

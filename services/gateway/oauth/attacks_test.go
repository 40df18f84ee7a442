package oauth_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/failurelimit"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
)

// Each attack the authorization server must refuse, with the error a
// client (or the person) is told.

const cb = "https://app.example/cb"

func TestRedirectURIAttacks(t *testing.T) {
	e := serve(t, mustOpenStore(t), nil)
	client := e.register("App", cb)
	for name, redirect := range map[string]string{
		"unregistered":        "https://evil.example/cb",
		"same host, new path": "https://app.example/other",
		"a registered prefix": cb + "/../../evil",
		"with a query added":  cb + "?next=https://evil.example",
	} {
		t.Run(name, func(t *testing.T) {
			a := e.newAuthorization(client, redirect)
			resp, body := e.authorize(a.query())
			if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" || !strings.Contains(body, "not one App registered") {
				t.Fatalf("answer %d, Location %q: %s", resp.StatusCode, resp.Header.Get("Location"), body)
			}
		})
	}
	t.Run("registering one that is neither https nor loopback", func(t *testing.T) {
		for _, bad := range []string{"http://app.example/cb", "cursor://anysphere/cb", "https://app.example/cb#frag", "javascript:alert(1)", "/relative"} {
			status, out, _ := e.postJSON(oauth.PathRegister, `{"client_name":"x","redirect_uris":["`+bad+`"],"token_endpoint_auth_method":"none"}`)
			wantError(t, status, out, http.StatusBadRequest, "invalid_redirect_uri")
		}
	})
	t.Run("a loopback redirect may change its port only", func(t *testing.T) {
		loop := e.register("CLI", "http://127.0.0.1:3000/callback")
		if resp, _ := e.authorize(e.newAuthorization(loop, "http://127.0.0.1:45123/callback").query()); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("another port: %d", resp.StatusCode)
		}
		if resp, _ := e.authorize(e.newAuthorization(loop, "http://127.0.0.1:45123/elsewhere").query()); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("another path: %d", resp.StatusCode)
		}
	})
}

// TestOpenRedirectThroughState: whatever state holds, the person goes
// only to the registered redirect URI, with state returned as it came.
func TestOpenRedirectThroughState(t *testing.T) {
	e := serve(t, mustOpenStore(t), nil)
	client := e.register("App", cb)
	for _, state := range []string{"https://evil.example/", "x&redirect_uri=https%3A%2F%2Fevil.example", "a\r\nLocation: https://evil.example", "//evil.example"} {
		a := e.newAuthorization(client, cb)
		a.state = state
		back, err := e.srv.Decide(context.Background(), e.consent(a), owner, both())
		if err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(back)
		if err != nil || u.Scheme+"://"+u.Host+u.Path != cb || u.Query().Get("state") != state || len(u.Query()["redirect_uri"]) != 0 {
			t.Errorf("state %q sent the person to %q", state, back)
		}
		// An error redirect is bound the same way.
		a.state = state
		q := a.query()
		q.Set("code_challenge_method", "plain")
		resp, _ := e.authorize(q)
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if loc == nil || loc.Scheme+"://"+loc.Host+loc.Path != cb || loc.Query().Get("state") != state {
			t.Errorf("an error with state %q went to %q", state, resp.Header.Get("Location"))
		}
	}
}

func TestCodeAttacks(t *testing.T) {
	e := serve(t, mustOpenStore(t), nil)
	client := e.register("App", cb)
	t.Run("reused: refused, and the tokens it got revoked", func(t *testing.T) {
		a := e.newAuthorization(client, cb)
		code := e.code(a, owner, both())
		status, tok := e.exchange(a, code)
		if status != http.StatusOK {
			t.Fatalf("first exchange %d %v", status, tok)
		}
		status, out := e.exchange(a, code)
		wantError(t, status, out, http.StatusBadRequest, "invalid_grant")
		if _, err := e.verify(tok["access_token"].(string)); !errors.Is(err, oauth.ErrInvalidToken) {
			t.Errorf("the first exchange's token still works after the code was reused: %v", err)
		}
		if status, out := e.refresh(client, tok["refresh_token"].(string)); status == http.StatusOK {
			t.Errorf("its refresh token still works: %v", out)
		}
	})
	t.Run("from another client", func(t *testing.T) {
		other := e.register("Other", cb)
		a := e.newAuthorization(client, cb)
		code := e.code(a, owner, both())
		theirs := *a
		theirs.client = other
		status, out := e.exchange(&theirs, code)
		wantError(t, status, out, http.StatusBadRequest, "invalid_grant")
		stillGood(t, e, a, code)
	})
	t.Run("PKCE verifier wrong", func(t *testing.T) {
		a := e.newAuthorization(client, cb)
		code := e.code(a, owner, both())
		wrong := *a
		wrong.verifier = oauth2.GenerateVerifier()
		status, out := e.exchange(&wrong, code)
		wantError(t, status, out, http.StatusBadRequest, "invalid_grant")
		stillGood(t, e, a, code)
	})
	t.Run("PKCE verifier missing", func(t *testing.T) {
		a := e.newAuthorization(client, cb)
		code := e.code(a, owner, both())
		none := *a
		none.verifier = ""
		status, out := e.exchange(&none, code)
		wantError(t, status, out, http.StatusBadRequest, "invalid_grant")
		stillGood(t, e, a, code)
	})
	for name, change := range map[string]func(url.Values){
		"PKCE plain": func(q url.Values) {
			q.Set("code_challenge_method", "plain")
			q.Set("code_challenge", strings.Repeat("a", 43))
		},
		"PKCE method omitted": func(q url.Values) { q.Del("code_challenge_method") },
		"no PKCE":             func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") },
		"implicit flow":       func(q url.Values) { q.Set("response_type", "token") },
	} {
		t.Run(name, func(t *testing.T) {
			q := e.newAuthorization(client, cb).query()
			change(q)
			resp, _ := e.authorize(q)
			loc, _ := url.Parse(resp.Header.Get("Location"))
			want := "invalid_request"
			if name == "implicit flow" {
				want = "unsupported_response_type"
			}
			if resp.StatusCode != http.StatusSeeOther || loc.Query().Get("error") != want || loc.Query().Get("code") != "" {
				t.Fatalf("answer %d to %s", resp.StatusCode, resp.Header.Get("Location"))
			}
		})
	}
	t.Run("redirect_uri changed at the exchange", func(t *testing.T) {
		loop := e.register("CLI", "http://127.0.0.1:3000/cb")
		a := e.newAuthorization(loop, "http://127.0.0.1:3000/cb")
		code := e.code(a, owner, both())
		moved := *a
		moved.redirect = "http://127.0.0.1:3001/cb"
		status, out := e.exchange(&moved, code)
		wantError(t, status, out, http.StatusBadRequest, "invalid_grant")
		stillGood(t, e, a, code)
	})
}

// stillGood checks that a code refused for another's request is still
// the right client's: a refused exchange does not use it up.
func stillGood(t *testing.T, e *env, a *authorization, code string) {
	t.Helper()
	if status, out := e.exchange(a, code); status != http.StatusOK {
		t.Errorf("the right exchange after a refused one: %d %v", status, out)
	}
}

// TestOtherResource: a token is only for this server's /mcp.
func TestOtherResource(t *testing.T) {
	store := mustOpenStore(t)
	e := serve(t, store, nil)
	client := e.register("App", cb)
	t.Run("asked at authorization", func(t *testing.T) {
		a := e.newAuthorization(client, cb)
		a.resource = "https://other.example/mcp"
		resp, _ := e.authorize(a.query())
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if loc == nil || loc.Query().Get("error") != "invalid_target" {
			t.Fatalf("answer %d to %s", resp.StatusCode, resp.Header.Get("Location"))
		}
	})
	t.Run("asked at the exchange", func(t *testing.T) {
		a := e.newAuthorization(client, cb)
		code := e.code(a, owner, both())
		status, out := e.postForm(oauth.PathToken, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {client},
			"redirect_uri": {cb}, "code_verifier": {a.verifier}, "resource": {"https://other.example/mcp"}})
		wantError(t, status, out, http.StatusBadRequest, "invalid_target")
		stillGood(t, e, a, code)
	})
	t.Run("presented to another server of the same store", func(t *testing.T) {
		tok := e.tokens(e.newAuthorization(client, cb), both())
		other := serve(t, store, nil) // another public URL, the same records
		_, err := other.verify(tok["access_token"].(string))
		if !errors.Is(err, oauth.ErrInvalidToken) || !strings.Contains(err.Error(), "issued for "+e.url+"/mcp") {
			t.Fatalf("another resource's token: %v", err)
		}
		if _, err := e.verify(tok["access_token"].(string)); err != nil {
			t.Fatalf("on its own server: %v", err)
		}
	})
}

func TestRefreshTokenReused(t *testing.T) {
	e := serve(t, mustOpenStore(t), nil)
	client := e.register("App", cb)
	tok := e.tokens(e.newAuthorization(client, cb), both())
	status, next := e.refresh(client, tok["refresh_token"].(string))
	if status != http.StatusOK {
		t.Fatalf("refresh %d %v", status, next)
	}
	// The old one again: someone copied it. The grant is revoked.
	status, out := e.refresh(client, tok["refresh_token"].(string))
	wantError(t, status, out, http.StatusBadRequest, "invalid_grant")
	if _, err := e.verify(next["access_token"].(string)); !errors.Is(err, oauth.ErrInvalidToken) {
		t.Errorf("the rotated access token still works: %v", err)
	}
	status, out = e.refresh(client, next["refresh_token"].(string))
	wantError(t, status, out, http.StatusBadRequest, "invalid_grant")
	t.Run("by another client", func(t *testing.T) {
		tok := e.tokens(e.newAuthorization(client, cb), both())
		other := e.register("Other", cb)
		status, out := e.refresh(other, tok["refresh_token"].(string))
		wantError(t, status, out, http.StatusBadRequest, "invalid_grant")
		if status, out := e.refresh(client, tok["refresh_token"].(string)); status != http.StatusOK {
			t.Errorf("its own client's refresh after a refused one: %d %v", status, out)
		}
	})
	t.Run("for another resource", func(t *testing.T) {
		tok := e.tokens(e.newAuthorization(client, cb), both())
		status, out := e.postForm(oauth.PathToken, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)},
			"client_id": {client}, "resource": {"https://other.example/mcp"}})
		wantError(t, status, out, http.StatusBadRequest, "invalid_target")
		if status, out := e.refresh(client, tok["refresh_token"].(string)); status != http.StatusOK {
			t.Errorf("refresh after a refused one: %d %v", status, out)
		}
	})
	t.Run("asking for more than granted", func(t *testing.T) {
		tok := e.tokens(e.newAuthorization(client, cb), oauth.Decision{Approve: true, Scopes: []string{"read"}})
		status, out := e.postForm(oauth.PathToken, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)},
			"client_id": {client}, "scope": {"read act"}})
		wantError(t, status, out, http.StatusBadRequest, "invalid_scope")
		// A client asking for its first scopes after a narrower grant
		// then asks for none: the token still works.
		status, out = e.refresh(client, tok["refresh_token"].(string))
		if status != http.StatusOK || out["scope"] != "read" {
			t.Errorf("refresh after a refused one: %d %v", status, out)
		}
	})
}

// TestGrantBeyondTheToken: the person may grant what their token holds,
// never more.
func TestGrantBeyondTheToken(t *testing.T) {
	e := serve(t, mustOpenStore(t), nil)
	client := e.register("App", cb)
	reader := oauth.Identity{Name: "reader", Scopes: []string{"read"}, Workspaces: []string{"work"}}
	for name, d := range map[string]oauth.Decision{
		"a scope":        {Approve: true, Scopes: []string{"read", "act"}},
		"a workspace":    {Approve: true, Scopes: []string{"read"}, Workspaces: []string{"home"}},
		"one of several": {Approve: true, Scopes: []string{"read"}, Workspaces: []string{"work", "home"}},
	} {
		t.Run(name, func(t *testing.T) {
			id := e.consent(e.newAuthorization(client, cb))
			_, err := e.srv.Decide(context.Background(), id, reader, d)
			if contract.ErrorCode(err) != contract.CodeDenied || !strings.Contains(err.Error(), "reader") {
				t.Fatalf("granting %+v with a read-only token of work: %v", d, err)
			}
			// The request is still there to answer within the token's reach.
			if _, err := e.srv.Request(context.Background(), id); err != nil {
				t.Fatalf("a refused decision spent the request: %v", err)
			}
		})
	}
	t.Run("a scope not asked", func(t *testing.T) {
		a := e.newAuthorization(client, cb)
		a.scope = "read"
		_, err := e.srv.Decide(context.Background(), e.consent(a), owner, both())
		if contract.ErrorCode(err) != contract.CodeInvalidRequest {
			t.Fatalf("granting act unasked: %v", err)
		}
	})
	t.Run("within the token: its workspaces by default", func(t *testing.T) {
		a := e.newAuthorization(client, cb)
		status, tok := e.exchange(a, e.code(a, reader, oauth.Decision{Approve: true, Scopes: []string{"read"}}))
		if status != http.StatusOK {
			t.Fatal(tok)
		}
		who, err := e.verify(tok["access_token"].(string))
		if err != nil || fmt.Sprint(who.Workspaces) != "[work]" || fmt.Sprint(who.Scopes) != "[read]" {
			t.Fatalf("%+v %v", who, err)
		}
	})
	t.Run("answered twice", func(t *testing.T) {
		id := e.consent(e.newAuthorization(client, cb))
		if _, err := e.srv.Decide(context.Background(), id, owner, both()); err != nil {
			t.Fatal(err)
		}
		if _, err := e.srv.Decide(context.Background(), id, owner, both()); err == nil {
			t.Fatal("a request was answered twice")
		}
	})
}

func TestRegistrationFlood(t *testing.T) {
	t.Run("from one address", func(t *testing.T) {
		e := serve(t, mustOpenStore(t), func(o *oauth.Options) { o.RegisterLimit = failurelimit.NewLimiter(time.Hour, 3) })
		for range 3 {
			e.register("App", cb)
		}
		status, out, h := e.postJSON(oauth.PathRegister, `{"client_name":"App","redirect_uris":["`+cb+`"],"token_endpoint_auth_method":"none"}`)
		wantError(t, status, out, http.StatusTooManyRequests, "temporarily_unavailable")
		if h.Get("Retry-After") == "" {
			t.Error("no Retry-After")
		}
	})
	t.Run("in all: the oldest never granted gives way, a granted one never", func(t *testing.T) {
		e := serve(t, mustOpenStore(t), func(o *oauth.Options) { o.MaxClients = 3 })
		used := e.register("Used", cb)
		e.tokens(e.newAuthorization(used, cb), both())
		// The test clock stands still; a real one moves between two
		// registrations, and which is oldest is only defined when it does.
		e.clock.add(time.Second)
		first := e.register("First", cb)
		for i := range 5 { // each a client of its own: the same one registering again gets its own back
			e.clock.add(time.Second)
			e.register("Flood "+strconv.Itoa(i), cb)
		}
		if _, err := e.srv.Grants(context.Background()); err != nil {
			t.Fatal(err)
		}
		raw, _ := e.store.List(context.Background(), "client")
		if len(raw) != 3 {
			t.Fatalf("%d clients kept, want the cap of 3", len(raw))
		}
		if resp, _ := e.authorize(e.newAuthorization(first, cb).query()); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("the oldest ungranted client was kept: %d", resp.StatusCode)
		}
		if resp, _ := e.authorize(e.newAuthorization(used, cb).query()); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("the granted client was dropped: %d", resp.StatusCode)
		}
		full := serve(t, mustOpenStore(t), func(o *oauth.Options) { o.MaxClients = 1 })
		c := full.register("Only", cb)
		full.tokens(full.newAuthorization(c, cb), both())
		status, out, _ := full.postJSON(oauth.PathRegister, `{"client_name":"More","redirect_uris":["`+cb+`"],"token_endpoint_auth_method":"none"}`)
		wantError(t, status, out, http.StatusTooManyRequests, "temporarily_unavailable")
	})
	t.Run("in size", func(t *testing.T) {
		e := serve(t, mustOpenStore(t), nil)
		status, out, _ := e.postJSON(oauth.PathRegister, `{"client_name":"`+strings.Repeat("x", 20<<10)+`","redirect_uris":["`+cb+`"]}`)
		wantError(t, status, out, http.StatusRequestEntityTooLarge, "invalid_client_metadata")
		many := strings.TrimSuffix(strings.Repeat(`"`+cb+`",`, 11), ",")
		status, out, _ = e.postJSON(oauth.PathRegister, `{"redirect_uris":[`+many+`]}`)
		wantError(t, status, out, http.StatusBadRequest, "invalid_redirect_uri")
	})
}

// TestDeletedClient: a client the server no longer knows is
// invalid_client with 401, at the token endpoint and at revocation.
func TestDeletedClient(t *testing.T) {
	e := serve(t, mustOpenStore(t), nil)
	status, out := e.refresh("no-such-client", "ohrt_x")
	wantError(t, status, out, http.StatusUnauthorized, "invalid_client")
	status, out = e.postForm(oauth.PathRevoke, url.Values{"token": {"x"}, "client_id": {"no-such-client"}})
	wantError(t, status, out, http.StatusUnauthorized, "invalid_client")
	resp, body := e.authorize(e.newAuthorization("no-such-client", cb).query())
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" || !strings.Contains(body, "not registered") {
		t.Errorf("authorize for a deleted client: %d %s", resp.StatusCode, body)
	}
}

// TestConfidentialClient: a client registered with a secret must send it.
func TestConfidentialClient(t *testing.T) {
	e := serve(t, mustOpenStore(t), nil)
	status, reg, _ := e.postJSON(oauth.PathRegister, `{"client_name":"Server app","redirect_uris":["`+cb+`"],"token_endpoint_auth_method":"client_secret_post"}`)
	if status != http.StatusCreated || reg["client_secret"] == nil {
		t.Fatalf("%d %v", status, reg)
	}
	client, secret := reg["client_id"].(string), reg["client_secret"].(string)
	a := e.newAuthorization(client, cb)
	code := e.code(a, owner, both())
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {client}, "redirect_uri": {cb}, "code_verifier": {a.verifier}}
	status, out := e.postForm(oauth.PathToken, form)
	wantError(t, status, out, http.StatusUnauthorized, "invalid_client")
	form.Set("client_secret", "wrong")
	status, out = e.postForm(oauth.PathToken, form)
	wantError(t, status, out, http.StatusUnauthorized, "invalid_client")
	form.Set("client_secret", secret)
	if status, out = e.postForm(oauth.PathToken, form); status != http.StatusOK {
		t.Fatalf("with its secret %d %v", status, out)
	}
}

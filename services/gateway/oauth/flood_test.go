package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/failurelimit"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
)

// flood registers n clients, a moment apart, as an attacker filling the
// server's clients would; every registration must be taken.
func (e *env) flood(n int) {
	e.t.Helper()
	for i := range n {
		e.clock.add(time.Millisecond)
		status, out, _ := e.postJSON(oauth.PathRegister, `{"client_name":"Flood `+strconv.Itoa(i)+`","redirect_uris":["`+cb+`"],"token_endpoint_auth_method":"none"}`)
		if status != http.StatusCreated {
			e.t.Fatalf("registration %d of the flood: %d %v", i, status, out)
		}
	}
}

// TestRegistrationFloodDuringAnAuthorization: a client in the middle of
// its authorization, its request waiting for the person or its code not
// yet exchanged, is never the one a flood of registrations evicts, though
// it is the oldest client never granted anything.
func TestRegistrationFloodDuringAnAuthorization(t *testing.T) {
	eachStore(t, floodDuringAnAuthorization)
}

func floodDuringAnAuthorization(t *testing.T, open func() oauth.Store) {
	e := serve(t, open(), func(o *oauth.Options) { o.RegisterLimit = failurelimit.NewLimiter(time.Hour, 1<<20) })
	const max = 1000 // the default of auth.oauth.max_clients
	waiting := e.register("Waiting for the person", cb)
	exchanging := e.register("Exchanging its code", cb)
	aw, ax := e.newAuthorization(waiting, cb), e.newAuthorization(exchanging, cb)
	request := e.consent(aw)
	code := e.code(ax, owner, both())

	e.flood(max)
	raw, _ := e.store.List(context.Background(), "client")
	if len(raw) != max {
		t.Fatalf("%d clients kept, want the cap of %d", len(raw), max)
	}
	if status, out := e.exchange(ax, code); status != http.StatusOK {
		t.Errorf("the code given before the flood: %d %v", status, out)
	}
	back, err := e.srv.Decide(context.Background(), request, owner, both())
	if err != nil {
		t.Fatalf("the request made before the flood: %v", err)
	}
	u, _ := url.Parse(back)
	if status, out := e.exchange(aw, u.Query().Get("code")); status != http.StatusOK {
		t.Errorf("the request made before the flood, once answered: %d %v", status, out)
	}
}

// TestRegistrationsFull: when every client holds a grant or an
// authorization in progress, a registration is refused with an RFC 7591
// error saying why and when to try again; once an authorization is left
// unfinished past its ten minutes, its client gives way.
func TestRegistrationsFull(t *testing.T) {
	eachStore(t, registrationsFull)
}

func registrationsFull(t *testing.T, open func() oauth.Store) {
	e := serve(t, open(), func(o *oauth.Options) { o.MaxClients = 2 })
	granted := e.register("Granted", cb)
	e.tokens(e.newAuthorization(granted, cb), both())
	e.clock.add(time.Second)
	busy := e.register("Busy", cb)
	e.consent(e.newAuthorization(busy, cb))
	e.clock.add(time.Minute)
	status, out, h := e.postJSON(oauth.PathRegister, `{"client_name":"More","redirect_uris":["`+cb+`"],"token_endpoint_auth_method":"none"}`)
	wantError(t, status, out, http.StatusTooManyRequests, "temporarily_unavailable")
	if d, _ := out["error_description"].(string); !strings.Contains(d, "max_clients") || !strings.Contains(d, "in progress") {
		t.Errorf("the refusal says %q", d)
	}
	// The request made a minute ago lasts nine more.
	if secs, _ := strconv.Atoi(h.Get("Retry-After")); secs < 8*60 || secs > 10*60 {
		t.Errorf("Retry-After %q, want about nine minutes", h.Get("Retry-After"))
	}
	e.clock.add(10 * time.Minute)
	e.register("More", cb)
	if resp, _ := e.authorize(e.newAuthorization(busy, cb).query()); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("the client whose authorization was left unfinished was kept: %d", resp.StatusCode)
	}
	if resp, _ := e.authorize(e.newAuthorization(granted, cb).query()); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the granted client was dropped: %d", resp.StatusCode)
	}
}

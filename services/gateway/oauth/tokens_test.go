package oauth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
)

// A grant ends with the bearer token that consented to it.

// restarted serves the records of before again, as a gateway restarted
// with tokens configured in place of before's: same public URL, a store
// handle of its own, its log kept.
func restarted(t *testing.T, before *env, store oauth.Store, tokens []oauth.BearerToken, log *bytes.Buffer) *env {
	t.Helper()
	return serve(t, store, func(o *oauth.Options) {
		o.PublicURL, o.Tokens = before.public, tokens
		o.Logger = slog.New(slog.NewTextHandler(log, nil))
	})
}

// connected is a client with tokens, granted by who.
type connected struct {
	client, access, refresh string
}

func (e *env) connect(name string, who oauth.Identity, d oauth.Decision) connected {
	e.t.Helper()
	client := e.register(name, cb)
	a := e.newAuthorization(client, cb)
	status, tok := e.exchange(a, e.code(a, who, d))
	if status != http.StatusOK {
		e.t.Fatalf("exchange: %d %v", status, tok)
	}
	return connected{client, tok["access_token"].(string), tok["refresh_token"].(string)}
}

// refused checks that c's grant no longer works on e: its access token
// is invalid_token, its refresh token invalid_grant.
func (e *env) refused(c connected) {
	e.t.Helper()
	if _, err := e.verify(c.access); !errors.Is(err, oauth.ErrInvalidToken) {
		e.t.Errorf("the access token still works: %v", err)
	}
	status, out := e.refresh(c.client, c.refresh)
	wantError(e.t, status, out, http.StatusBadRequest, "invalid_grant")
}

// works checks that c's grant still works on e.
func (e *env) works(c connected) {
	e.t.Helper()
	if _, err := e.verify(c.access); err != nil {
		e.t.Errorf("the access token of a grant whose token stands is refused: %v", err)
	}
	if status, out := e.refresh(c.client, c.refresh); status != http.StatusOK {
		e.t.Errorf("its refresh: %d %v", status, out)
	}
}

var (
	ownerID  = oauth.Identity{Name: "owner", Scopes: []string{"read", "act"}}
	readerID = oauth.Identity{Name: "reader", Scopes: []string{"read"}, Workspaces: []string{"work"}}
)

// TestGrantEndsWithItsTokenAtRestart: the token that consented is
// removed from the configuration (or replaced, or narrowed below the
// grant) and the gateway restarted: the grant is revoked as it starts,
// which it logs, and its access and refresh tokens are refused. A grant
// of a token left as it was keeps working.
func TestGrantEndsWithItsTokenAtRestart(t *testing.T) {
	narrowed := ownerToken
	narrowed.Scopes = []string{"read"}
	limited := ownerToken
	limited.Workspaces = []string{"work"}
	replaced := ownerToken
	replaced.SHA256 = sha256Hex("oh_owner_new")
	for name, tokens := range map[string][]oauth.BearerToken{
		"removed":                   {readerToken},
		"replaced under its name":   {replaced, readerToken},
		"narrowed to fewer scopes":  {narrowed, readerToken},
		"limited to some workspace": {limited, readerToken},
	} {
		t.Run(name, func(t *testing.T) {
			eachStore(t, func(t *testing.T, open func() oauth.Store) {
				before := serve(t, open(), nil)
				gone := before.connect("Claude", ownerID, both())
				kept := before.connect("VS Code", readerID, oauth.Decision{Approve: true, Scopes: []string{"read"}})
				var log bytes.Buffer
				after := restarted(t, before, open(), tokens, &log)
				n, err := after.srv.RevokeOrphans(context.Background())
				if err != nil || n != 1 {
					t.Errorf("revoked at start: %d %v, want 1", n, err)
				}
				if !strings.Contains(log.String(), "revoked=1") {
					t.Errorf("the start does not log how many grants it revoked:\n%s", log.String())
				}
				after.refused(gone)
				after.works(kept)
				if grants, _ := after.srv.Grants(context.Background()); len(grants) != 1 || grants[0].Owner != "reader" {
					t.Errorf("grants listed after the restart: %+v", grants)
				}
			})
		})
	}
}

// TestGrantEndsWithItsTokenOnUse: a replica still configured with the
// token grants while another, restarted without it, is already serving:
// the grant's next use on the restarted one refuses it and revokes it,
// so the other refuses it too. A code given by the stale replica is not
// exchanged on the restarted one.
func TestGrantEndsWithItsTokenOnUse(t *testing.T) {
	eachStore(t, func(t *testing.T, open func() oauth.Store) {
		var log bytes.Buffer
		stale := serve(t, open(), nil)
		current := restarted(t, stale, open(), []oauth.BearerToken{readerToken}, &log)
		if n, err := current.srv.RevokeOrphans(context.Background()); err != nil || n != 0 {
			t.Fatalf("revoked at start: %d %v, want none", n, err)
		}
		used := stale.connect("Claude", ownerID, both())
		if _, err := current.verify(used.access); !errors.Is(err, oauth.ErrInvalidToken) || !strings.Contains(err.Error(), "removed, replaced or narrowed") {
			t.Fatalf("an access token of a grant whose token is gone: %v", err)
		}
		if !strings.Contains(log.String(), "its token owner is no longer configured") {
			t.Errorf("the revocation is not logged with why:\n%s", log.String())
		}
		stale.refused(used)

		refreshed := stale.connect("ChatGPT", ownerID, both())
		status, out := current.refresh(refreshed.client, refreshed.refresh)
		wantError(t, status, out, http.StatusBadRequest, "invalid_grant")
		stale.refused(refreshed)

		client := stale.register("Cursor", cb)
		a := stale.newAuthorization(client, cb)
		status, out = current.exchange(a, stale.code(a, ownerID, both()))
		wantError(t, status, out, http.StatusBadRequest, "invalid_grant")
		current.works(current.connect("Zed", readerID, oauth.Decision{Approve: true, Scopes: []string{"read"}}))
	})
}

// TestGrantOfBefore: a grant stored before grants recorded their
// consenting token cannot show that token still stands: it is revoked
// at start, and refused at its next use.
func TestGrantOfBefore(t *testing.T) {
	eachStore(t, func(t *testing.T, open func() oauth.Store) {
		store := open()
		ctx := context.Background()
		e := serve(t, store, nil)
		c := e.connect("Claude", ownerID, both())
		grants, _ := e.srv.Grants(ctx)
		if len(grants) != 1 || grants[0].TokenID != oauth.TokenID(ownerToken) {
			t.Fatalf("a new grant %+v, want it to name its token", grants)
		}
		old := grants[0]
		old.TokenID = ""
		b, _ := json.Marshal(old)
		if err := store.Put(ctx, "grant", old.ID, b, time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if _, err := e.verify(c.access); !errors.Is(err, oauth.ErrInvalidToken) {
			t.Errorf("an access token of a grant of before: %v", err)
		}
		_ = store.Put(ctx, "grant", old.ID, b, time.Now().Add(time.Hour))
		if n, err := e.srv.RevokeOrphans(ctx); err != nil || n != 1 {
			t.Errorf("revoked at start: %d %v, want 1", n, err)
		}
		e.refused(c)
	})
}

// TestConsentWithATokenNotConfigured: a session of a token the server
// does not have (configured away) grants nothing.
func TestConsentWithATokenNotConfigured(t *testing.T) {
	e := serve(t, mustOpenStore(t), nil)
	id := e.consent(e.newAuthorization(e.register("App", cb), cb))
	_, err := e.srv.Decide(context.Background(), id, oauth.Identity{Name: "former", Scopes: []string{"read", "act"}}, both())
	if contract.ErrorCode(err) != contract.CodeDenied || !strings.Contains(err.Error(), "former") {
		t.Fatalf("a decision by a token not configured: %v", err)
	}
}

// TestTokenID: the identifier a grant keeps names the token, changes
// with it, and is neither the token nor the hash config.toml holds.
func TestTokenID(t *testing.T) {
	id := oauth.TokenID(ownerToken)
	replaced := ownerToken
	replaced.SHA256 = sha256Hex("oh_other")
	renamed := ownerToken
	renamed.Name = "laptop"
	switch {
	case len(id) != 32:
		t.Errorf("%q is not 128 bits of hex", id)
	case id != oauth.TokenID(ownerToken):
		t.Error("the same token has two IDs")
	case id == oauth.TokenID(replaced) || id == oauth.TokenID(renamed):
		t.Error("another token, or the same under another name, has the same ID")
	case strings.Contains(ownerToken.SHA256, id) || strings.Contains(id, ownerToken.SHA256[:16]) || strings.Contains(url.QueryEscape(id), "oh_owner"):
		t.Error("the ID shows the token's hash")
	}
}

package oauth_test

import (
	"net/http"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
)

// TestRegisteringAgain: a public client that registers again with the same
// metadata, as Claude Code does on every sign-in, gets the client it had,
// redirect URIs in any order; other metadata, or a confidential client,
// gets a client of its own.
func TestRegisteringAgain(t *testing.T) {
	eachStore(t, func(t *testing.T, open func() oauth.Store) {
		e := serve(t, open(), nil)
		reg := func(body string) string {
			t.Helper()
			status, out, _ := e.postJSON(oauth.PathRegister, body)
			if status != http.StatusCreated {
				t.Fatalf("registering %s: %d %v", body, status, out)
			}
			return out["client_id"].(string)
		}
		const two = `"redirect_uris":["http://127.0.0.1:33418/callback","http://localhost:33418/callback"]`
		const swapped = `"redirect_uris":["http://localhost:33418/callback","http://127.0.0.1:33418/callback"]`
		first := reg(`{"client_name":"Claude Code",` + two + `,"token_endpoint_auth_method":"none","application_type":"native"}`)
		if again := reg(`{"client_name":"Claude Code",` + swapped + `,"token_endpoint_auth_method":"none","application_type":"native"}`); again != first {
			t.Errorf("the same public client registering again got %s, not %s", again, first)
		}
		if other := reg(`{"client_name":"Claude Code 2",` + two + `,"token_endpoint_auth_method":"none","application_type":"native"}`); other == first {
			t.Error("another name got the same client")
		}
		secret := `{"client_name":"A web app",` + two + `,"token_endpoint_auth_method":"client_secret_post"}`
		if reg(secret) == reg(secret) {
			t.Error("a confidential client registering again got the client, whose secret it cannot be given")
		}
	})
}

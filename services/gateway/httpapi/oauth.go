package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
)

// OAuth is the edge's side of OAuth 2.1 for remote MCP clients: /mcp takes
// the access tokens of an authorization server (the built-in one, or an
// external OpenID issuer) beside the configured bearer tokens, and a
// request without either is answered 401 naming the RFC 9728 resource
// metadata, from which a client finds where to sign in. A token is for
// /mcp alone, the resource it is bound to (RFC 8707): /rpc keeps taking
// the configured tokens only. An OAuth caller then is what a bearer
// token's caller is: a name, scopes and workspaces, carried in every
// call's signed context, so the gateway's gates and the memory service's
// workspace scope hold it the same way.
type OAuth struct {
	// Resource is what tokens are for: the public URL's /mcp.
	Resource string
	// Issuers are the authorization servers the resource metadata names.
	Issuers []string
	// Verify checks an access token; a refusal wraps oauth.ErrInvalidToken.
	Verify func(ctx context.Context, token string) (oauth.Identity, error)
	// Server is the built-in authorization server's routes (metadata and
	// /oauth/), nil with an external issuer.
	Server http.Handler
}

// guardedPath is the resource's path.
const guardedPath = "/mcp"

func (a *OAuth) guards(path string) bool { return a != nil && path == guardedPath }

// open reports whether path is one of the documents or endpoints a
// client reaches before it has a token.
func (a *OAuth) open(path string) bool {
	if a == nil {
		return false
	}
	if path == oauth.PathResourceMetadata || path == oauth.PathResourceMetadata+guardedPath {
		return true
	}
	return a.Server != nil && (path == oauth.PathServerMetadata || strings.HasPrefix(path, "/oauth/"))
}

func (a *OAuth) mount(r chi.Router) {
	if a == nil {
		return
	}
	meta := oauth.ResourceMetadata(a.Resource, a.Issuers)
	r.Method(http.MethodGet, oauth.PathResourceMetadata, meta)
	r.Method(http.MethodGet, oauth.PathResourceMetadata+guardedPath, meta)
	if a.Server != nil {
		r.Method(http.MethodGet, oauth.PathServerMetadata, a.Server)
		r.Handle("/oauth/*", a.Server)
	}
}

// verify checks a presented token that is no configured one; refused says
// why it is not taken ("" when none was presented), and failed that it
// could not be checked (the store or the issuer did not answer).
func (a *OAuth) verify(r *http.Request, presented, problem string) (who *caller, refused string, failed error) {
	if problem != "" {
		return nil, "", nil
	}
	id, err := a.Verify(r.Context(), presented)
	if errors.Is(err, oauth.ErrInvalidToken) {
		return nil, strings.TrimPrefix(err.Error(), oauth.ErrInvalidToken.Error()+": "), nil
	}
	if err != nil {
		return nil, "", err
	}
	return &caller{name: id.Name, scopes: id.Scopes, workspaces: id.Workspaces}, "", nil
}

// unavailable answers a token that could not be checked: not 401, which
// would send the client to sign in again for nothing.
func (a *OAuth) unavailable(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	log.Error("oauth: a token could not be checked", "path", r.URL.Path, "err", err)
	w.Header().Set("Retry-After", "5")
	writeError(w, http.StatusServiceUnavailable, "Service Unavailable: the access token could not be checked right now; try again")
}

// refuse answers 401 with the challenge that starts a client's sign-in.
func (a *OAuth) refuse(w http.ResponseWriter, r *http.Request, log *slog.Logger, refused string) {
	log.Info("request refused: no valid token", "path", r.URL.Path, "why", refused, "remote", r.RemoteAddr)
	w.Header().Set("WWW-Authenticate", oauth.Challenge(a.Resource, refused))
	msg := "Unauthorized: sign in with OAuth (the resource metadata at " + oauth.ResourceMetadataURL(a.Resource) + " names the authorization server), or send Authorization: Bearer <token> with a token of this server"
	if refused != "" {
		msg = "Unauthorized: " + refused
	}
	writeError(w, http.StatusUnauthorized, msg)
}

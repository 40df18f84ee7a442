// Package oauth lets remote MCP clients (Claude, ChatGPT, VS Code) sign in
// with OAuth 2.1 as the MCP authorization specification (2025-06-18 and
// 2025-11-25) asks. It holds the resource server's side, the RFC 9728
// protected-resource metadata that names who issues tokens for /mcp and the
// check of those tokens, and a built-in authorization server: RFC 8414
// metadata, RFC 7591 dynamic client registration, client ID metadata
// documents, the authorization code grant with PKCE (S256 only), rotating
// refresh tokens whose reuse revokes the grant, RFC 7009 revocation, and
// RFC 8707 resource indicators binding every token to this server's /mcp.
// The person decides on a consent page in the console (package console),
// signed in with a bearer token that holds what they grant.
//
// A token, code or pending request is a random value the store knows only
// by its SHA-256 (store.go); a grant's tokens live only while the grant
// does, so revoking it ends them at once on every replica, and a grant
// lives only while the bearer token that consented to it is configured
// (tokens.go). Tokens are
// opaque: the resource server looks each up, which is what makes that
// revocation immediate.
//
// Libraries. The documents are the MCP Go SDK's types (oauthex:
// ProtectedResourceMetadata, AuthServerMeta, the registration request and
// response) and its RFC 9728 handler (auth.ProtectedResourceMetadataHandler);
// PKCE's S256 is golang.org/x/oauth2's. The protocol itself is written here,
// after weighing the two maintained Go servers. ory/fosite (v0.49.0) has
// no RFC 8707 resource indicators (its pull request 879 was closed
// unmerged), requires a state of 8 characters or more that OAuth 2.1 and
// the MCP TypeScript SDK leave optional, has no registration, metadata or
// client ID metadata documents, and wants an HMAC secret shared by every
// replica plus a storage of its own request objects. zitadel/oidc's op
// (v3.52.0) is an OpenID provider: it has no resource indicators either,
// accepts PKCE plain, needs signing keys and a crypto key shared by the
// replicas, and has no registration. Both would leave the parts MCP
// needs most to be written anyway, beside adapters as large as what is
// here. An external issuer's JWTs are checked with coreos/go-oidc on
// go-jose v4 (package oidc).
package oauth

import (
	"cmp"
	"crypto/x509"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/failurelimit"
)

// Paths of the built-in authorization server, under the public URL.
const (
	PathAuthorize = "/oauth/authorize"
	PathToken     = "/oauth/token"
	PathRegister  = "/oauth/register"
	PathRevoke    = "/oauth/revoke"
	// PathServerMetadata is RFC 8414's document, and PathResourceMetadata
	// RFC 9728's (also served under it with /mcp after it).
	PathServerMetadata   = "/.well-known/oauth-authorization-server"
	PathResourceMetadata = "/.well-known/oauth-protected-resource"
)

// Options configure a Server. PublicURL and Store are required.
type Options struct {
	// PublicURL is the origin clients reach the gateway at; it is the
	// issuer, and PublicURL+"/mcp" the one resource tokens are for.
	PublicURL string
	Store     Store
	// Registration turns on dynamic client registration.
	Registration bool
	// MaxClients bounds the registered clients (default 1000).
	MaxClients int
	// AccessTTL is an access token's life (default 15 minutes), GrantTTL
	// how long a grant lasts unused (default 30 days).
	AccessTTL, GrantTTL time.Duration
	// ConsentURL is the console page the person decides on (default
	// PublicURL + "/console/oauth/consent"); it gets ?request=ID.
	ConsentURL string
	// RegisterLimit bounds registrations per client address (default 20,
	// then one every 30 seconds).
	RegisterLimit *failurelimit.Limiter
	// DocumentRoots are the CAs trusted for client metadata documents
	// (default: the system's).
	DocumentRoots *x509.CertPool
	// Tokens are the bearer tokens configured, which people sign in to
	// the consent page with: a grant lasts only while the one that
	// consented to it is among them, unchanged (tokens.go). Nil leaves
	// grants unchecked, for a server with no tokens, whose console is
	// open; serve never runs the authorization server so.
	Tokens []BearerToken
	Logger *slog.Logger
	Now    func() time.Time
}

// Server is the built-in authorization server.
type Server struct {
	opts     Options
	store    Store
	issuer   string
	resource string
	docs     *documents
	touched  *touches
	// consenters are Options.Tokens by name.
	consenters map[string]consenter
	router     *http.ServeMux
}

// New returns the server; Handler serves its routes.
func New(opts Options) *Server {
	opts.PublicURL = strings.TrimSuffix(opts.PublicURL, "/")
	opts.MaxClients = cmp.Or(opts.MaxClients, 1000)
	opts.AccessTTL = cmp.Or(opts.AccessTTL, 15*time.Minute)
	opts.GrantTTL = cmp.Or(opts.GrantTTL, 30*24*time.Hour)
	opts.ConsentURL = cmp.Or(opts.ConsentURL, opts.PublicURL+"/console/oauth/consent")
	if opts.RegisterLimit == nil {
		opts.RegisterLimit = failurelimit.NewLimiter(30*time.Second, 20)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{opts: opts, store: opts.Store, issuer: opts.PublicURL, resource: opts.PublicURL + "/mcp"}
	s.docs = newDocuments(opts.DocumentRoots, isLoopbackURL(opts.PublicURL), opts.Now)
	s.touched = newTouches()
	s.consenters = newConsenters(opts.Tokens)
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+PathServerMetadata, s.serverMetadata)
	mux.HandleFunc("GET "+PathAuthorize, s.authorize)
	mux.HandleFunc("POST "+PathToken, s.token)
	mux.HandleFunc("POST "+PathRevoke, s.revoke)
	mux.HandleFunc("POST "+PathRegister, s.register)
	s.router = mux
	return s
}

// Handler serves the authorization server's routes: its metadata and the
// /oauth/ endpoints.
func (s *Server) Handler() http.Handler { return s.router }

// Issuer is the server's issuer identifier, its public URL.
func (s *Server) Issuer() string { return s.issuer }

// Resource is what tokens are for: the public URL's /mcp.
func (s *Server) Resource() string { return s.resource }

// Identity is who an access token speaks for, as the edge knows a bearer
// token's caller: a name, its scopes and, when not empty, the only
// workspaces it may reach.
type Identity struct {
	Name       string
	Scopes     []string
	Workspaces []string
}

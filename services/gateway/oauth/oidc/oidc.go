// Package oidc checks the JWT access tokens of an external OpenID Connect
// issuer ([auth.oidc]: Keycloak, Authelia, Auth0, Google...) for /mcp, in
// place of the built-in authorization server. It wraps coreos/go-oidc,
// which finds the issuer's keys by discovery and checks a token's
// signature, iss, aud and exp (on go-jose v4); the key set is this
// package's (jwks.go), so that how often the issuer is asked stays
// bounded whatever tokens arrive. A token's configured claim says what
// its bearer may do: read and act are scopes, workspace:NAME names a
// workspace it is limited to.
package oidc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
)

// Options configure a Verifier; Issuer and Audience are required.
type Options struct {
	Issuer   string
	Audience string
	// Claim holds the grants (default "scope"), NameClaim the caller's
	// name (default "sub").
	Claim, NameClaim string
	// Client fetches discovery and keys (default: 10-second timeout).
	Client *http.Client
	Logger *slog.Logger
	Now    func() time.Time
}

// Verifier checks the issuer's access tokens.
type Verifier struct {
	opts Options
	mu   sync.Mutex
	v    *gooidc.IDTokenVerifier
	// tried is when discovery last failed: it is retried after a while,
	// not at every request.
	tried time.Time
}

// signingAlgs are the asymmetric algorithms taken; HS256 and none never.
var signingAlgs = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

const retryDiscovery = 30 * time.Second

// New returns a verifier; it reaches the issuer at the first token.
func New(opts Options) *Verifier {
	if opts.Claim == "" {
		opts.Claim = "scope"
	}
	if opts.NameClaim == "" {
		opts.NameClaim = "sub"
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Verifier{opts: opts}
}

// verifier discovers the issuer once, then keeps its verifier.
func (v *Verifier) verifier(ctx context.Context) (*gooidc.IDTokenVerifier, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.v != nil {
		return v.v, nil
	}
	if now := v.opts.Now(); now.Sub(v.tried) < retryDiscovery {
		return nil, fmt.Errorf("the issuer %s could not be reached a moment ago; tokens are checked again once it is", v.opts.Issuer)
	}
	ctx, cancel := context.WithTimeout(gooidc.ClientContext(ctx, v.opts.Client), 10*time.Second)
	defer cancel()
	p, err := gooidc.NewProvider(ctx, v.opts.Issuer)
	if err != nil {
		v.tried = v.opts.Now()
		v.opts.Logger.Error("oidc: discovering the issuer failed", "issuer", v.opts.Issuer, "err", err)
		return nil, fmt.Errorf("the issuer %s could not be discovered: %v", v.opts.Issuer, err)
	}
	var meta struct {
		JWKS string `json:"jwks_uri"`
	}
	if err := p.Claims(&meta); err != nil || meta.JWKS == "" {
		v.tried = v.opts.Now()
		return nil, fmt.Errorf("the issuer %s publishes no jwks_uri", v.opts.Issuer)
	}
	keys := newKeySet(meta.JWKS, v.opts.Client, v.opts.Now, v.opts.Logger)
	v.v = gooidc.NewVerifier(v.opts.Issuer, keys, &gooidc.Config{ClientID: v.opts.Audience, SupportedSigningAlgs: signingAlgs, Now: v.opts.Now})
	return v.v, nil
}

// Verify checks a token and returns who it speaks for; a token refused
// is oauth.ErrInvalidToken, saying why.
func (v *Verifier) Verify(ctx context.Context, raw string) (oauth.Identity, error) {
	ver, err := v.verifier(ctx)
	if err != nil {
		return oauth.Identity{}, err
	}
	tok, err := ver.Verify(ctx, raw)
	if err != nil {
		var expired *gooidc.TokenExpiredError
		if errors.As(err, &expired) {
			return oauth.Identity{}, fmt.Errorf("%w: the token expired; get a new one from %s", oauth.ErrInvalidToken, v.opts.Issuer)
		}
		return oauth.Identity{}, fmt.Errorf("%w: %v", oauth.ErrInvalidToken, err)
	}
	var claims map[string]any
	if err := tok.Claims(&claims); err != nil {
		return oauth.Identity{}, fmt.Errorf("%w: its claims could not be read: %v", oauth.ErrInvalidToken, err)
	}
	return v.identity(claims)
}

// identity maps the claims: the grants claim to scopes and workspaces,
// the name claim to oidc:<name>.
func (v *Verifier) identity(claims map[string]any) (oauth.Identity, error) {
	name, _ := claims[v.opts.NameClaim].(string)
	if name = strings.TrimSpace(name); name == "" {
		return oauth.Identity{}, fmt.Errorf("%w: the token has no %s claim to name its bearer by", oauth.ErrInvalidToken, v.opts.NameClaim)
	}
	var values []string
	switch c := claims[v.opts.Claim].(type) {
	case string:
		values = strings.Fields(c)
	case []any:
		for _, x := range c {
			if s, ok := x.(string); ok {
				values = append(values, s)
			}
		}
	}
	id := oauth.Identity{Name: "oidc:" + clip(name, 58), Scopes: []string{}}
	for _, val := range values {
		if ws, ok := strings.CutPrefix(val, "workspace:"); ok {
			if contract.CheckWorkspace(ws) == nil && !slices.Contains(id.Workspaces, ws) {
				id.Workspaces = append(id.Workspaces, ws)
			}
		} else if slices.Contains(contract.Scopes, val) && !slices.Contains(id.Scopes, val) {
			id.Scopes = append(id.Scopes, val)
		}
	}
	if len(id.Scopes) == 0 {
		return oauth.Identity{}, fmt.Errorf("%w: its %s claim grants neither read nor act", oauth.ErrInvalidToken, v.opts.Claim)
	}
	return id, nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

package oauth

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// ErrInvalidToken is the error of a token the resource refuses; the
// message says why (unknown, expired, revoked, for another resource).
var ErrInvalidToken = errors.New("invalid token")

func refused(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidToken}, a...)...)
}

// Verify finds who an access token of this server speaks for. A token
// whose grant was revoked, or that was issued for another resource (two
// gateways sharing one store), is refused; so is one past its time.
func (s *Server) Verify(ctx context.Context, value string) (Identity, error) {
	var t token
	found, err := s.get(ctx, kindAccess, digest(value), &t)
	if err != nil {
		return Identity{}, err
	}
	now := s.opts.Now()
	if !found {
		return Identity{}, refused("the token is not one this server knows: it expired (refresh it), was revoked, or is another server's")
	}
	if !now.Before(t.Expires) {
		return Identity{}, refused("the access token expired; refresh it")
	}
	var g Grant
	if found, err = s.get(ctx, kindGrant, t.GrantID, &g); err != nil {
		return Identity{}, err
	}
	if !found {
		return Identity{}, refused("the access was revoked; authorize again")
	}
	if !oauthex.MatchesResource([]string{g.Resource}, s.resource) {
		return Identity{}, refused("the token was issued for %s, not %s", g.Resource, s.resource)
	}
	if s.outlived(ctx, g) {
		return Identity{}, refused("the access was revoked: %s; authorize again", tokenGone)
	}
	if s.touched.due(g.ID, now) {
		if err := s.put(ctx, kindUsed, g.ID, now, g.Expires); err != nil {
			s.opts.Logger.Warn("oauth: recording a grant's use failed", "grant", g.ID, "err", err)
		}
	}
	scopes := g.Scopes
	if t.Scopes != nil {
		scopes = t.Scopes
	}
	return Identity{Name: g.Name(), Scopes: scopes, Workspaces: g.Workspaces}, nil
}

package oauth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
)

// A grant stands on the bearer token that consented to it: the person
// granted with that token's authority, so the grant lasts only while the
// token is configured, unchanged, and still holds every scope and
// workspace the grant carries. A grant keeps the token's name (Owner) and
// its TokenID; when the configured token of that name is gone, has
// another ID (it was replaced), or was narrowed below the grant, the
// grant is revoked: by RevokeOrphans when a gateway starts, and at the
// grant's next use on any replica (Verify, a refresh, a code's exchange)
// whose configuration no longer has the token. A narrowed token revokes
// rather than narrows: what the person consented to is no longer what the
// client would get, and the client, refused, simply asks again, so the
// person decides anew within what the token now holds. A grant stored
// before grants kept their TokenID cannot show that its token still
// stands, and is revoked the same way.

// BearerToken is a bearer token of the gateway's as config.toml declares
// it ([[auth.tokens]]): by name and SHA-256, never the token itself.
type BearerToken struct {
	Name string
	// SHA256 is the token's SHA-256 in hex.
	SHA256     string
	Scopes     []string
	Workspaces []string
}

// TokenID is what a grant keeps of the token that consented: an
// HMAC-SHA256 of the token's name keyed by the token's SHA-256, in 128
// bits of hex. It names the token without being its hash: the store
// learns neither the token nor the line of config.toml that declares it,
// and a token replaced under the same name has another ID.
func TokenID(t BearerToken) string {
	key, err := hex.DecodeString(t.SHA256)
	if err != nil {
		key = []byte(t.SHA256) // config validation lets no such entry through
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("openhuman oauth consenting token\x00" + t.Name))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// consenter is a configured token as grants are checked against it.
type consenter struct {
	id                 string
	scopes, workspaces []string
}

// newConsenters indexes tokens by name; nil for nil.
func newConsenters(tokens []BearerToken) map[string]consenter {
	if tokens == nil {
		return nil
	}
	out := make(map[string]consenter, len(tokens))
	for _, t := range tokens {
		out[t.Name] = consenter{id: TokenID(t), scopes: t.Scopes, workspaces: t.Workspaces}
	}
	return out
}

// tokenGone is what a client is told of a grant revoked for its token;
// which token, and how it changed, is for the server's log alone.
const tokenGone = "the bearer token that granted it was removed, replaced or narrowed on this server"

// orphaned says why g no longer stands on its consenting token, "" when
// it does (or when the server checks no tokens).
func (s *Server) orphaned(g Grant) string {
	if s.consenters == nil {
		return ""
	}
	t, ok := s.consenters[g.Owner]
	switch {
	case g.TokenID == "":
		return "it was granted before grants recorded the token that granted them"
	case !ok:
		return "its token " + quoteSafe(g.Owner) + " is no longer configured"
	case !hmac.Equal([]byte(t.id), []byte(g.TokenID)):
		return "its token " + quoteSafe(g.Owner) + " was replaced"
	}
	for _, sc := range g.Scopes {
		if !slices.Contains(t.scopes, sc) {
			return "its token " + quoteSafe(g.Owner) + " no longer holds scope " + quoteSafe(sc)
		}
	}
	if len(t.workspaces) == 0 {
		return ""
	}
	if len(g.Workspaces) == 0 {
		return "its token " + quoteSafe(g.Owner) + " is now limited to workspaces " + strings.Join(t.workspaces, ", ")
	}
	for _, w := range g.Workspaces {
		if !slices.Contains(t.workspaces, w) {
			return "its token " + quoteSafe(g.Owner) + " no longer reaches workspace " + quoteSafe(w)
		}
	}
	return ""
}

// outlived revokes g when its token no longer stands behind it, and
// reports whether it did.
func (s *Server) outlived(ctx context.Context, g Grant) bool {
	why := s.orphaned(g)
	if why != "" {
		s.revokeGrant(ctx, g.ID, why)
	}
	return why != ""
}

// RevokeOrphans revokes every grant whose consenting token no longer
// stands behind it, as a gateway starts with its configuration, and
// returns how many it revoked. A grant it misses (one made meanwhile on
// a replica configured otherwise) is revoked at its next use.
func (s *Server) RevokeOrphans(ctx context.Context) (int, error) {
	if s.consenters == nil {
		return 0, nil
	}
	raw, err := s.store.List(ctx, kindGrant)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, b := range raw {
		var g Grant
		if json.Unmarshal(b, &g) == nil && s.outlived(ctx, g) {
			n++
		}
	}
	s.opts.Logger.Info("oauth: grants checked against the configured tokens", "grants", len(raw), "revoked", n)
	return n, nil
}

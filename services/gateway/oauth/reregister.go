package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// A public client that registers again with the same metadata gets the
// registration it had: some clients (Claude Code among them) register on
// every sign-in, which would leave a client behind each time. Only a
// public client: a confidential one's secret is shown once and kept
// hashed, so it cannot be handed out again. A record of kind
// kindClientKey maps the metadata's digest to the client; it lives as long
// as an ungranted client does, and each use renews it.

const kindClientKey = "clientkey"

// metadataKey is the digest a public client's registration is known by:
// what it asked for, redirect URIs in any order.
func metadataKey(m oauthex.ClientRegistrationMetadata, method string) string {
	uris := slices.Clone(m.RedirectURIs)
	slices.Sort(uris)
	b, _ := json.Marshal([]any{m.ClientName, m.ClientURI, uris, method, m.Scope, m.ApplicationType})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// registered is the client a public client's registration made before
// with the same metadata, when it is still registered.
func (s *Server) registered(ctx context.Context, key string) (Client, bool, error) {
	var id string
	found, err := s.get(ctx, kindClientKey, key, &id)
	if err != nil || !found {
		return Client{}, false, err
	}
	var c Client
	if found, err = s.get(ctx, kindClient, id, &c); err != nil || !found {
		return Client{}, false, err
	}
	return c, true, s.put(ctx, kindClientKey, key, id, s.opts.Now().Add(ungrantedClientTTL))
}

// remember notes which client a public client's metadata made.
func (s *Server) remember(ctx context.Context, key string, c Client) error {
	return s.put(ctx, kindClientKey, key, c.ID, c.Created.Add(ungrantedClientTTL))
}

package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Store keeps the server's records where every gateway replica sees them
// (Redis when configured, else SQLite in the gateway's home: packages
// redis and sqlite). A record is a kind, a key and bytes that live until
// they expire. What is secret never reaches it: a token, code or pending
// request is kept under the SHA-256 of its value, and a client secret as
// its SHA-256.
type Store interface {
	// Put keeps value under kind and key until expires (zero: no end),
	// replacing what was there, used or not.
	Put(ctx context.Context, kind, key string, value []byte, expires time.Time) error
	// Get returns the record, found false when there is none or it expired.
	Get(ctx context.Context, kind, key string) (value []byte, found bool, err error)
	// Update replaces a record that exists, and reports whether it did:
	// a record deleted meanwhile (a grant revoked) stays deleted.
	Update(ctx context.Context, kind, key string, value []byte, expires time.Time) (found bool, err error)
	// Use marks the record used and returns it: first is true for the
	// first Use only, however many replicas ask at once.
	Use(ctx context.Context, kind, key string) (value []byte, found, first bool, err error)
	// Swap replaces the record with value only while it still holds old,
	// and reports whether it did: of two writers that read the same
	// record, the later one learns that it changed (or went) meanwhile.
	Swap(ctx context.Context, kind, key string, old, value []byte, expires time.Time) (swapped bool, err error)
	Delete(ctx context.Context, kind, key string) error
	// DeleteIf drops the record only while it still holds old, and
	// reports whether it did.
	DeleteIf(ctx context.Context, kind, key string, old []byte) (deleted bool, err error)
	// List returns every live record of kind.
	List(ctx context.Context, kind string) ([][]byte, error)
}

// Record kinds.
const (
	kindClient  = "client"
	kindRequest = "request"
	kindGrant   = "grant"
	kindCode    = "code"
	kindAccess  = "access"
	kindRefresh = "refresh"
	kindUsed    = "used" // a grant's last use, apart so that it never revives a revoked grant
)

// Client is a registered client, or one a client ID metadata document
// describes (then never stored: Document is its URL, the client_id).
type Client struct {
	ID string `json:"id"`
	// SecretHash is the hex SHA-256 of the secret of a confidential client.
	SecretHash   string    `json:"secret_hash,omitempty"`
	Name         string    `json:"name"`
	URI          string    `json:"uri,omitempty"`
	RedirectURIs []string  `json:"redirect_uris"`
	AuthMethod   string    `json:"auth_method"`
	Scope        string    `json:"scope,omitempty"`
	Created      time.Time `json:"created"`
	// Granted is true once a person granted it access: a client that
	// never was is forgotten after a day.
	Granted bool `json:"granted,omitempty"`
	// Busy is when the client's latest authorization ends at the latest
	// (its request's ten minutes, then its code's two): until then a
	// registration flood never evicts it.
	Busy time.Time `json:"busy,omitzero"`
	// Document marks a client known by its metadata document.
	Document bool `json:"document,omitempty"`
}

// request is an authorization request waiting for the person's decision.
type request struct {
	ClientID     string    `json:"client_id"`
	ClientName   string    `json:"client_name"`
	ClientURI    string    `json:"client_uri,omitempty"`
	Document     bool      `json:"document,omitempty"`
	RedirectURI  string    `json:"redirect_uri"`
	State        string    `json:"state,omitempty"`
	Challenge    string    `json:"challenge"`
	Scopes       []string  `json:"scopes"`
	Resource     string    `json:"resource"`
	Created      time.Time `json:"created"`
	RedirectHost string    `json:"redirect_host"`
}

// Grant is what a person allowed a client: the scopes and workspaces its
// tokens carry, for one resource.
type Grant struct {
	ID         string `json:"id"`
	ClientID   string `json:"client_id"`
	ClientName string `json:"client_name"`
	Document   bool   `json:"document,omitempty"`
	Owner      string `json:"owner"` // the name of the bearer token signed in with
	// TokenID identifies that token (TokenID): the grant ends when the
	// token configured under Owner no longer has it.
	TokenID string   `json:"token_id,omitempty"`
	Scopes  []string `json:"scopes"`
	// Workspaces, when not empty, are the only ones the client may reach.
	Workspaces []string  `json:"workspaces,omitempty"`
	Resource   string    `json:"resource"`
	Created    time.Time `json:"created"`
	LastUsed   time.Time `json:"last_used"`
	// Issued is true once its code was exchanged for tokens.
	Issued bool `json:"issued,omitempty"`
	// Expires is when it ends unless refreshed.
	Expires time.Time `json:"expires"`
}

// Name is how the grant's calls are known in provenance, the audit and
// MCP sessions: oauth:<client>:<grant>, unique to the grant.
func (g Grant) Name() string {
	slug := contract.ClientSlug(g.ClientName)
	if len(slug) > 24 {
		slug = slug[:24]
	}
	id := g.ID
	if len(id) > 8 {
		id = id[:8]
	}
	return "oauth:" + slug + ":" + id
}

// code is an authorization code's record.
type code struct {
	GrantID     string `json:"grant_id"`
	ClientID    string `json:"client_id"`
	RedirectURI string `json:"redirect_uri"`
	Challenge   string `json:"challenge"`
	Resource    string `json:"resource"`
}

// token is an access or refresh token's record.
type token struct {
	GrantID string    `json:"grant_id"`
	Expires time.Time `json:"expires"`
	// Scopes, on an access token, when a refresh asked for fewer than
	// the grant's.
	Scopes []string `json:"scopes,omitempty"`
}

// zeroTime is "no end" for Store.Put.
var zeroTime time.Time

// digest is what the store knows a secret value by.
func digest(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// newSecret is a fresh random value with prefix: 32 bytes, URL-safe.
func newSecret(prefix string) string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand does not fail on Linux
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// newID is a random identifier that is not a secret.
func newID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *Server) put(ctx context.Context, kind, key string, v any, expires time.Time) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.store.Put(ctx, kind, key, b, expires)
}

func (s *Server) get(ctx context.Context, kind, key string, v any) (bool, error) {
	b, ok, err := s.store.Get(ctx, kind, key)
	if err != nil || !ok {
		return false, err
	}
	return true, json.Unmarshal(b, v)
}

// update is Store.Update encoding v.
func (s *Server) update(ctx context.Context, kind, key string, v any, expires time.Time) (bool, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return false, err
	}
	return s.store.Update(ctx, kind, key, b, expires)
}

// spend marks used a record already read with get, once what came with it
// has been checked: found is false when it expired meanwhile, first only
// for its first use.
func (s *Server) spend(ctx context.Context, kind, key string) (found, first bool, err error) {
	_, found, first, err = s.store.Use(ctx, kind, key)
	return found, first, err
}

package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// envAPIToken is a full-access bearer token given in the clear, for quick
// setups. Load keeps only its hash (as the token named EnvTokenName): the
// clear token is in no field, so nothing that prints a Config can show it.
const envAPIToken = "OPENHUMAN_API_TOKEN"

// envAPITokenFrom says where OPENHUMAN_API_TOKEN was set ("in .env beside
// docker-compose.yml"), for the 401 answer to point a client at that value:
// serve sees only its environment, not the file a deployment filled it from.
const envAPITokenFrom = "OPENHUMAN_API_TOKEN_FROM"

// EnvTokenName names the token OPENHUMAN_API_TOKEN adds; a file entry may
// not take it.
const EnvTokenName = "env"

// Auth is who may call `openhuman-core serve`. With no token every caller
// is let in, which serve allows only on a loopback address.
type Auth struct {
	Tokens []Token `toml:"tokens"`
	OAuth  OAuth   `toml:"oauth"`
	OIDC   OIDC    `toml:"oidc"`
	// APITokenFrom is where OPENHUMAN_API_TOKEN was set, as
	// OPENHUMAN_API_TOKEN_FROM says; "" when unsaid or with no such token.
	APITokenFrom string `toml:"-"`
}

// Token is one bearer token of the HTTP edge, known by the SHA-256 of the
// token only: a config file that leaks grants nothing.
type Token struct {
	// Name labels the token's calls (provenance http:<name>, the audit).
	Name string `toml:"name"`
	// SHA256 is the token's SHA-256 in hex, as `token new` prints it.
	SHA256 string `toml:"sha256"`
	// Scopes are read and act (contract.ScopeRead, contract.ScopeAct).
	Scopes []string `toml:"scopes"`
	// Workspaces, when set, are the only workspaces the token's calls may
	// read or write.
	Workspaces []string `toml:"workspaces"`
}

// HashToken is the hex SHA-256 a Token holds for the bearer token s.
func HashToken(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Digest is the token's SHA-256 as bytes; ok is false when SHA256 is not 64
// hex digits, which Load never lets through.
func (t Token) Digest() (sum [sha256.Size]byte, ok bool) {
	b, err := hex.DecodeString(t.SHA256)
	if err != nil || len(b) != sha256.Size {
		return sum, false
	}
	copy(sum[:], b)
	return sum, true
}

// Has reports whether the token was given scope.
func (t Token) Has(scope string) bool { return slices.Contains(t.Scopes, scope) }

// Check says what is wrong with t, for the entry of config.toml or the
// command line that made it; nil when nothing is.
func (t Token) Check() error {
	switch {
	case t.Name == "":
		return fmt.Errorf("name is missing: give the token a name of a-z, 0-9, - and _, such as \"laptop\"")
	case strings.Trim(t.Name, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "":
		return fmt.Errorf("name %q: use only a-z, 0-9, - and _", t.Name)
	case len(t.Name) > 64:
		return fmt.Errorf("name %q: use at most 64 characters", t.Name)
	}
	if _, ok := t.Digest(); !ok {
		// The value is not repeated: a token pasted here by mistake
		// would end up in the log.
		return fmt.Errorf("sha256 is not 64 hex digits: put the SHA-256 of the token there, never the token itself (`openhuman-core token new %s` prints both)", t.Name)
	}
	if len(t.Scopes) == 0 {
		return fmt.Errorf("scopes is missing: use [\"read\"], or [\"read\", \"act\"] to let the token learn, forget, run sub-agents and decide approvals")
	}
	for _, s := range t.Scopes {
		if !slices.Contains(contract.Scopes, s) {
			return fmt.Errorf("scopes: unknown scope %q: use %s", s, strings.Join(contract.Scopes, " and/or "))
		}
	}
	for _, w := range t.Workspaces {
		if contract.IsBlank(w) {
			return fmt.Errorf("workspaces: a workspace name is blank: name each workspace, or leave workspaces out for all of them")
		}
		if err := contract.CheckWorkspace(w); err != nil {
			return fmt.Errorf("workspaces: %w", err)
		}
	}
	return nil
}

// MinAPITokenLength is the shortest OPENHUMAN_API_TOKEN taken. A token
// is the only thing between the network and the memory, with both scopes;
// one short enough to guess or try would make that a formality. `token
// new` makes 46 characters.
const MinAPITokenLength = 24

// readAPIToken adds the token OPENHUMAN_API_TOKEN holds, by its hash.
func (c *Config) readAPIToken(getenv func(string) string) error {
	s, from := getenv(envAPIToken), getenv(envAPITokenFrom)
	if s == "" {
		return nil
	}
	// The value itself is never repeated: it may be a real secret.
	switch {
	case strings.TrimSpace(s) != s:
		return fmt.Errorf("%s: the token begins or ends with white space, which no client sends; set it without", envAPIToken)
	case len(s) < MinAPITokenLength:
		return fmt.Errorf("%s: the token is %d characters, too short to keep anyone out; use at least %d (`openhuman-core token new NAME` prints a strong one)",
			envAPIToken, len(s), MinAPITokenLength)
	}
	c.Auth.Tokens = append(c.Auth.Tokens, Token{Name: EnvTokenName, SHA256: HashToken(s), Scopes: slices.Clone(contract.Scopes)})
	switch {
	case from == "":
	case strings.Contains(from, s):
		return fmt.Errorf("%s holds the token itself; say where it is set instead, such as \"in .env beside docker-compose.yml\"", envAPITokenFrom)
	case len(from) > 200 || strings.IndexFunc(from, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0:
		// It is shown to every caller refused, so it stays one short line.
		return fmt.Errorf("%s: say where OPENHUMAN_API_TOKEN is set in one line of at most 200 characters, such as \"in .env beside docker-compose.yml\"", envAPITokenFrom)
	default:
		c.Auth.APITokenFrom = from
	}
	return nil
}

// validateAuth checks every token entry, and that names are unique.
func (c *Config) validateAuth() error {
	seen := map[string]int{}
	for i, t := range c.Auth.Tokens {
		n := i + 1
		where := fmt.Sprintf("auth.tokens #%d", n)
		if t.Name != "" {
			where += " (" + t.Name + ")"
		}
		if err := t.Check(); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if prev := seen[t.Name]; prev > 0 {
			if t.Name == EnvTokenName {
				// OPENHUMAN_API_TOKEN's entry comes last, so the file's is prev.
				return fmt.Errorf("auth.tokens #%d (%s): the name %q is taken by the token OPENHUMAN_API_TOKEN sets: rename the entry", prev, t.Name, t.Name)
			}
			return fmt.Errorf("%s: name %q is a duplicate of #%d: give each token its own name", where, t.Name, prev)
		}
		seen[t.Name] = n
	}
	return nil
}

// OAuth configures the built-in OAuth 2.1 authorization server remote MCP
// clients sign in with (services/gateway/oauth). It is on when
// [http] public_url is set and no external issuer is configured.
type OAuth struct {
	// Enabled false turns the built-in server off; nil is on whenever
	// http.public_url is set.
	Enabled *bool `toml:"enabled" env:"OPENHUMAN_OAUTH_ENABLED"`
	// DynamicRegistration false refuses RFC 7591 registration: clients
	// then identify themselves by a client metadata document URL. Nil is on.
	DynamicRegistration *bool `toml:"dynamic_registration" env:"OPENHUMAN_OAUTH_DYNAMIC_REGISTRATION"`
	// MaxClients bounds the registered clients; one that never got a
	// grant is forgotten after a day.
	MaxClients int `toml:"max_clients" env:"OPENHUMAN_OAUTH_MAX_CLIENTS" default:"1000"`
	// AccessTokenMinutes is an access token's life.
	AccessTokenMinutes Minutes `toml:"access_token_minutes" env:"OPENHUMAN_OAUTH_ACCESS_TOKEN_MINUTES" default:"15"`
	// RefreshTokenDays is how long a grant lasts unused: each refresh
	// starts it again.
	RefreshTokenDays int `toml:"refresh_token_days" env:"OPENHUMAN_OAUTH_REFRESH_TOKEN_DAYS" default:"30"`
}

// OIDC names an external OpenID Connect issuer whose JWT access tokens
// serve accepts at /mcp instead of running its own authorization server.
type OIDC struct {
	// Issuer is the issuer's URL, as its tokens' iss claim says.
	Issuer string `toml:"issuer" env:"OPENHUMAN_OIDC_ISSUER"`
	// Audience is what a token's aud claim must hold; default the
	// resource, http.public_url + "/mcp".
	Audience string `toml:"audience" env:"OPENHUMAN_OIDC_AUDIENCE"`
	// Claim holds the caller's grants, space-separated or a list: read and
	// act are scopes, workspace:NAME limits the caller to the workspaces
	// so named (none: every workspace).
	Claim string `toml:"claim" env:"OPENHUMAN_OIDC_CLAIM" default:"scope"`
	// NameClaim names the caller in provenance and the audit, as
	// oidc:<value>.
	NameClaim string `toml:"name_claim" env:"OPENHUMAN_OIDC_NAME_CLAIM" default:"sub"`
}

// OAuthOn reports whether serve runs its own authorization server.
func (c Config) OAuthOn() bool {
	return c.HTTP.PublicURL != "" && c.Auth.OIDC.Issuer == "" && (c.Auth.OAuth.Enabled == nil || *c.Auth.OAuth.Enabled)
}

// Registration reports whether dynamic client registration is on.
func (o OAuth) Registration() bool { return o.DynamicRegistration == nil || *o.DynamicRegistration }

// Resource is the resource OAuth access tokens are for: public_url's /mcp.
func (h HTTP) Resource() string { return strings.TrimSuffix(h.PublicURL, "/") + "/mcp" }

// validateOAuth checks public_url and the OAuth and OIDC settings.
func (c *Config) validateOAuth() error {
	c.HTTP.PublicURL = strings.TrimSuffix(c.HTTP.PublicURL, "/")
	if u := c.HTTP.PublicURL; u != "" {
		if err := checkOrigin(u); err != nil {
			return fmt.Errorf("http.public_url %q (OPENHUMAN_HTTP_PUBLIC_URL): %v", u, err)
		}
	}
	o := c.Auth.OAuth
	switch {
	case o.MaxClients < 1 || o.MaxClients > 100000:
		return fmt.Errorf("auth.oauth.max_clients %d: use 1 to 100000", o.MaxClients)
	case o.AccessTokenMinutes.D() < time.Minute || o.AccessTokenMinutes.D() > 24*time.Hour:
		return fmt.Errorf("auth.oauth.access_token_minutes %s: use 1 to 1440 minutes (1m to 24h) (short-lived tokens are the point; refresh tokens renew them)", o.AccessTokenMinutes)
	case o.RefreshTokenDays < 1 || o.RefreshTokenDays > 365:
		return fmt.Errorf("auth.oauth.refresh_token_days %d: use 1 to 365", o.RefreshTokenDays)
	}
	if c.OAuthOn() && len(c.Auth.Tokens) == 0 {
		return fmt.Errorf("http.public_url turns on the OAuth authorization server, whose consent page in the console signs in with a bearer token, and there is none: " +
			"make one with `openhuman-core token new NAME` (or set OPENHUMAN_API_TOKEN), or set auth.oauth.enabled = false")
	}
	d := c.Auth.OIDC
	if d.Issuer == "" {
		return nil
	}
	if c.HTTP.PublicURL == "" {
		return fmt.Errorf("auth.oidc.issuer needs http.public_url (OPENHUMAN_HTTP_PUBLIC_URL): the tokens it issues are for this server's /mcp, which clients must be able to reach")
	}
	if u, err := url.Parse(d.Issuer); err != nil || u.Host == "" || (u.Scheme != "https" && !(u.Scheme == "http" && isLoopbackHost(u.Hostname()))) {
		return fmt.Errorf("auth.oidc.issuer %q (OPENHUMAN_OIDC_ISSUER): use the issuer's https URL, as its tokens' iss claim says, such as https://auth.example.com/realms/main", d.Issuer)
	}
	if d.Claim == "" || d.NameClaim == "" {
		return fmt.Errorf("auth.oidc.claim and auth.oidc.name_claim must name a claim of the issuer's access tokens")
	}
	return nil
}

// checkOrigin says what is wrong with u as a public origin.
func checkOrigin(u string) error {
	p, err := url.Parse(u)
	switch {
	case err != nil || p.Host == "" || (p.Scheme != "https" && p.Scheme != "http"):
		return fmt.Errorf("use the https URL clients reach serve at, such as https://memory.example.com")
	case p.Path != "" || p.RawQuery != "" || p.Fragment != "" || p.User != nil:
		return fmt.Errorf("use the origin alone (scheme, host and port), such as https://memory.example.com: MCP is served at its /mcp and the OAuth documents at its /.well-known/")
	case p.Scheme == "http" && !isLoopbackHost(p.Hostname()):
		return fmt.Errorf("remote clients take only https: put a reverse proxy with TLS in front of serve and give its https URL (plain http is for a loopback address, to test)")
	}
	return nil
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

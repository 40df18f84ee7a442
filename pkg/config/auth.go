package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

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

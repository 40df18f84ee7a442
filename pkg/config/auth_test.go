package config

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestAuthTokens(t *testing.T) {
	hash := HashToken("oh_example")
	t.Run("entries and the environment's token", func(t *testing.T) {
		home := t.TempDir()
		write(t, home, fmt.Sprintf(`
[[auth.tokens]]
name = "ci"
sha256 = %q
scopes = ["read"]
workspaces = ["work"]

[[auth.tokens]]
name = "laptop_2"
sha256 = %q
scopes = ["read", "act"]
`, hash, strings.ToUpper(HashToken("other"))))
		c, err := Load(home, env(map[string]string{"OPENHUMAN_API_TOKEN": "oh_secret-long-enough-to-keep-out"}))
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Auth.Tokens) != 3 {
			t.Fatalf("tokens %+v", c.Auth.Tokens)
		}
		ci, laptop, envTok := c.Auth.Tokens[0], c.Auth.Tokens[1], c.Auth.Tokens[2]
		if ci.Name != "ci" || !ci.Has("read") || ci.Has("act") || !slices.Equal(ci.Workspaces, []string{"work"}) {
			t.Errorf("ci %+v", ci)
		}
		if d, ok := laptop.Digest(); !ok || fmt.Sprintf("%x", d) != HashToken("other") {
			t.Errorf("an upper-case hash must read as the same digest: %+v", laptop)
		}
		if envTok.Name != "env" || envTok.SHA256 != HashToken("oh_secret-long-enough-to-keep-out") || !envTok.Has("read") || !envTok.Has("act") || len(envTok.Workspaces) != 0 {
			t.Errorf("OPENHUMAN_API_TOKEN's entry %+v", envTok)
		}
		if s := fmt.Sprintf("%+v", c); strings.Contains(s, "oh_secret") {
			t.Error("the clear token is kept in the Config")
		}
	})
	t.Run("the variable is known", func(t *testing.T) {
		if w := UnknownEnv([]string{"OPENHUMAN_API_TOKEN=oh_secret", "OPENHUMAN_API_TOKEN_FROM=in .env"}); len(w) != 0 {
			t.Errorf("warned of %+v", w)
		}
	})
	t.Run("where the environment's token was set", func(t *testing.T) {
		c, err := Load(t.TempDir(), env(map[string]string{"OPENHUMAN_API_TOKEN": "oh_secret-long-enough-to-keep-out", "OPENHUMAN_API_TOKEN_FROM": "in .env beside docker-compose.yml"}))
		if err != nil || c.Auth.APITokenFrom != "in .env beside docker-compose.yml" {
			t.Fatalf("%q %v", c.Auth.APITokenFrom, err)
		}
		// Without the token there is nothing to say where it is.
		if c, err := Load(t.TempDir(), env(map[string]string{"OPENHUMAN_API_TOKEN_FROM": "in .env"})); err != nil || c.Auth.APITokenFrom != "" {
			t.Fatalf("%q %v", c.Auth.APITokenFrom, err)
		}
	})
	t.Run("no tokens", func(t *testing.T) {
		c, err := Load(t.TempDir(), env(nil))
		if err != nil || len(c.Auth.Tokens) != 0 {
			t.Fatalf("%+v %v", c.Auth, err)
		}
	})
	entry := func(lines ...string) string { return "[[auth.tokens]]\n" + strings.Join(lines, "\n") + "\n" }
	name, sha, read := `name = "ci"`, fmt.Sprintf("sha256 = %q", hash), `scopes = ["read"]`
	for _, tc := range []struct {
		name, file string
		env        map[string]string
		want       string
	}{
		{"missing name", entry(sha, read), nil, "auth.tokens #1: name is missing"},
		{"bad name", entry(`name = "CI token"`, sha, read), nil, `auth.tokens #1 (CI token): name "CI token": use only a-z, 0-9, - and _`},
		{"missing sha256", entry(name, read), nil, "auth.tokens #1 (ci): sha256 is not 64 hex digits: put the SHA-256 of the token there, never the token itself"},
		{"token instead of its hash", entry(name, `sha256 = "oh_notahash"`, read), nil, "never the token itself"},
		{"short hash", entry(name, `sha256 = "abcdef"`, read), nil, "sha256 is not 64 hex digits"},
		{"missing scopes", entry(name, sha), nil, `auth.tokens #1 (ci): scopes is missing: use ["read"]`},
		{"unknown scope", entry(name, sha, `scopes = ["read", "write"]`), nil, `auth.tokens #1 (ci): scopes: unknown scope "write": use read and/or act`},
		{"blank workspace", entry(name, sha, read, `workspaces = [" "]`), nil, "workspaces: a workspace name is blank"},
		{"workspace as a path", entry(name, sha, read, `workspaces = ["work", "../../x"]`), nil, `auth.tokens #1 (ci): workspaces: workspace "../../x" holds a path separator; a workspace name is 1 to 128 printable characters`},
		{"workspace with NUL", entry(name, sha, read, `workspaces = ["wo\u0000rk"]`), nil, `workspaces: workspace "wo\x00rk" holds a character that does not print (U+0000)`},
		{"long workspace", entry(name, sha, read, `workspaces = ["`+strings.Repeat("w", 1024)+`"]`), nil, "workspaces: the workspace name is 1024 characters long"},
		{"duplicate name", entry(name, sha, read) + entry(name, sha, `scopes = ["act"]`), nil, `auth.tokens #2 (ci): name "ci" is a duplicate of #1`},
		{"the environment's name", entry(`name = "env"`, sha, read), map[string]string{"OPENHUMAN_API_TOKEN": "oh_secret-long-enough-to-keep-out"}, `auth.tokens #1 (env): the name "env" is taken by the token OPENHUMAN_API_TOKEN sets`},
		{"a short OPENHUMAN_API_TOKEN", "", map[string]string{"OPENHUMAN_API_TOKEN": "hunter2"}, "OPENHUMAN_API_TOKEN: the token is 7 characters, too short to keep anyone out; use at least 24"},
		{"OPENHUMAN_API_TOKEN with a newline", "", map[string]string{"OPENHUMAN_API_TOKEN": "oh_secret-long-enough-to-keep-out\n"}, "OPENHUMAN_API_TOKEN: the token begins or ends with white space"},
		{"OPENHUMAN_API_TOKEN_FROM holding the token", "", map[string]string{"OPENHUMAN_API_TOKEN": "oh_secret-long-enough-to-keep-out", "OPENHUMAN_API_TOKEN_FROM": "OPENHUMAN_API_TOKEN=oh_secret-long-enough-to-keep-out"},
			"OPENHUMAN_API_TOKEN_FROM holds the token itself; say where it is set instead"},
		{"OPENHUMAN_API_TOKEN_FROM of two lines", "", map[string]string{"OPENHUMAN_API_TOKEN": "oh_secret-long-enough-to-keep-out", "OPENHUMAN_API_TOKEN_FROM": "in .env\nor not"},
			"OPENHUMAN_API_TOKEN_FROM: say where OPENHUMAN_API_TOKEN is set in one line of at most 200 characters"},
		{"the token in the file", entry(name, sha, read, `token = "oh_x"`), nil, "unknown key auth.tokens.token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			write(t, home, tc.file)
			_, err := Load(home, env(tc.env))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "oh_") {
				t.Errorf("the error repeats a token: %v", err)
			}
		})
	}
}

// TestTokenAppendedToTheFile: `token new NAME >> config.toml` appends the
// token itself before the lines; loading says which line to delete, and
// never repeats the token.
func TestTokenAppendedToTheFile(t *testing.T) {
	home := t.TempDir()
	const token = "oh_0ZaOgoO4xMdE0TnMV1a0568i3IllcmrCk2VWQapcvtw"
	write(t, home, "[log]\nlevel = \"info\"\n"+token+"\n\n# Add to config.toml, then restart serve:\n[[auth.tokens]]\nname = \"laptop\"\nsha256 = \""+HashToken(token)+"\"\nscopes = [\"read\"]\n")
	_, err := Load(home, env(nil))
	if err == nil || !strings.Contains(err.Error(), "line 3 holds a bearer token itself") || strings.Contains(err.Error(), token) {
		t.Fatalf("got %v", err)
	}
}

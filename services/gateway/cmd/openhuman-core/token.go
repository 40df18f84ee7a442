package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// tokenPrefix marks our tokens, so that one pasted into the wrong place
// (a chat, a repository) is recognised by a person or a secret scanner.
const tokenPrefix = "oh_"

// runToken makes a bearer token: `token new NAME [--scopes read,act]
// [--workspaces a,b]`. It prints the token and the config.toml lines that
// declare it by its hash; the token itself is kept nowhere.
func (m *Main) runToken(g globalFlags, args []string) int {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g.register(fs) // accepted anywhere, as by every command; a token needs no home
	scopes := fs.String("scopes", contract.ScopeRead, "comma-separated: read, act")
	workspaces := fs.String("workspaces", "", "comma-separated workspaces the token is limited to (default: all)")
	if err := parseAnywhere(fs, args); err != nil {
		return m.usageError(fmt.Errorf("token: %w", err))
	}
	words := fs.Args()
	if len(words) != 2 || words[0] != "new" {
		return m.usageError(errors.New("token takes: new NAME [--scopes read,act] [--workspaces a,b]"))
	}
	t := config.Token{Name: words[1], Scopes: splitList(*scopes), Workspaces: splitList(*workspaces)}
	if t.Name == config.EnvTokenName {
		return m.usageError(fmt.Errorf("token new: the name %q is taken by the token OPENHUMAN_API_TOKEN sets: choose another", t.Name))
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core: no randomness for a token:", err)
		return exitFailure
	}
	token := tokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	t.SHA256 = config.HashToken(token)
	if err := t.Check(); err != nil {
		return m.usageError(fmt.Errorf("token new: %w", err))
	}
	fmt.Fprintln(m.Stdout, token)
	file, err := config.FilePath(g.home, m.Getenv)
	if err != nil {
		file = "config.toml"
	}
	fmt.Fprintf(m.Stdout, "\n# Add to %s, then restart serve:\n[[auth.tokens]]\nname = %s\nsha256 = %s\nscopes = %s\n",
		file, tomlValue(t.Name), tomlValue(t.SHA256), tomlValue(t.Scopes))
	if len(t.Workspaces) > 0 {
		fmt.Fprintf(m.Stdout, "workspaces = %s\n", tomlValue(t.Workspaces))
	}
	fmt.Fprintf(m.Stderr, "openhuman-core: the token is on the first line and is shown this once: config.toml keeps only its sha256. "+
		"Give it to the client as the header Authorization: Bearer %s...; a lost token is replaced with a new one.\n", tokenPrefix)
	if !slices.Contains(t.Scopes, contract.ScopeAct) {
		// Least privilege by default, said aloud: a client given this
		// token will find memory.learn refused and should know why.
		fmt.Fprintf(m.Stderr, "openhuman-core: scope read only: its calls can read memory but not learn, forget or run sub-agents; "+
			"make it with --scopes read,act for a client that should.\n")
	}
	return exitOK
}

func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// tomlValue writes a string or a list of strings as TOML: JSON's strings
// and arrays of them are valid TOML.
func tomlValue(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

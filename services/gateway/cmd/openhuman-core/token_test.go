package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/config"
)

// runBinary runs openhuman-core with args in home and returns its exit
// code, stdout and stderr.
func runBinary(t *testing.T, home string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "openhuman-core"), args...)
	cmd.Env = testEnv(home, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	code, exited := waitExit(cmd, 60*time.Second)
	if !exited {
		t.Fatalf("%v did not exit; stderr %s", args, errb.String())
	}
	return code, out.String(), errb.String()
}

// TestTokenNew makes a token with the real binary, declares it with the
// lines it printed, and calls serve with it.
func TestTokenNew(t *testing.T) {
	home := t.TempDir()
	code, out, stderr := runBinary(t, home, nil, "token", "new", "laptop", "--scopes", "read,act", "--workspaces", "work,home")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	token, lines, _ := strings.Cut(out, "\n")
	if !regexp.MustCompile(`^oh_[A-Za-z0-9_-]{43}$`).MatchString(token) {
		t.Fatalf("token %q: want oh_ and 32 random bytes in base64url", token)
	}
	for _, want := range []string{"# Add to " + filepath.Join(home, "config.toml") + ",", "[[auth.tokens]]\n", `name = "laptop"`, `sha256 = "` + config.HashToken(token) + `"`, `scopes = ["read","act"]`, `workspaces = ["work","home"]`} {
		if !strings.Contains(lines, want) {
			t.Errorf("stdout lacks %s:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, "shown this once") || strings.Contains(stderr, token) {
		t.Errorf("stderr %q: want the warning, without the token", stderr)
	}
	if _, again, _ := runBinary(t, home, nil, "token", "new", "laptop"); strings.HasPrefix(again, token) || !strings.Contains(again, `scopes = ["read"]`) {
		t.Errorf("a second token: %s (want another token, scope read by default)", again)
	}

	// The printed lines are a valid config.toml, and the token opens serve.
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	url := startServe(t, home) + "/rpc"
	learn := `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_learn","params":{"text":"Tokens made by token new open serve.","workspace":"work"}}`
	if status, body := rpcAs(t, url, "", learn); status != http.StatusUnauthorized {
		t.Errorf("without the token: %d %s", status, body)
	}
	if status, body := rpcAs(t, url, token, learn); status != 200 || !strings.Contains(body, `"result"`) {
		t.Errorf("with the token: %d %s", status, body)
	}

	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no name", []string{"token", "new"}, "token takes: new NAME"},
		{"no verb", []string{"token"}, "token takes: new NAME"},
		{"bad name", []string{"token", "new", "My Laptop"}, `name "My Laptop": use only a-z, 0-9, - and _`},
		{"unknown scope", []string{"token", "new", "ci", "--scopes", "read,write"}, `unknown scope "write": use read and/or act`},
		{"no scope", []string{"token", "new", "ci", "--scopes", ""}, "scopes is missing"},
		{"the environment's name", []string{"token", "new", "env"}, "taken by the token OPENHUMAN_API_TOKEN sets"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runBinary(t, home, nil, tc.args...)
			if code != exitUsage || out != "" || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, nothing, and %q", code, out, stderr, exitUsage, tc.stderr)
			}
		})
	}
	if _, out, _ := runBinary(t, home, nil, "help"); !strings.Contains(out, "token new NAME") || !strings.Contains(out, "OPENHUMAN_API_TOKEN") {
		t.Errorf("help does not list token new and OPENHUMAN_API_TOKEN:\n%s", out)
	}
}

// TestServeRefusesAnOpenAddressWithoutToken: on an address other hosts
// reach, serve starts only with a token.
func TestServeRefusesAnOpenAddressWithoutToken(t *testing.T) {
	home := t.TempDir()
	code, out, stderr := runBinary(t, home, nil, "serve", "--addr", "0.0.0.0:0")
	if code != exitFailure || out != "" {
		t.Fatalf("exit %d, stdout %q; want %d and nothing", code, out, exitFailure)
	}
	for _, want := range []string{"refusing to serve on 0.0.0.0:", "without a bearer token", "openhuman-core token new NAME", "OPENHUMAN_API_TOKEN"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}

	// OPENHUMAN_API_TOKEN is enough, and loopback needs it too once set.
	const token = "oh_a-token-from-the-environment"
	url := startServeOn(t, home, "0.0.0.0:0", "OPENHUMAN_API_TOKEN="+token)
	url = "http://127.0.0.1" + url[strings.LastIndex(url, ":"):] + "/rpc"
	list := `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_items_list","params":{}}`
	if status, _ := rpcAs(t, url, "", list); status != http.StatusUnauthorized {
		t.Errorf("without the token: %d", status)
	}
	if status, body := rpcAs(t, url, token, list); status != 200 || !strings.Contains(body, `"items"`) {
		t.Errorf("with OPENHUMAN_API_TOKEN: %d %s", status, body)
	}
}

// rpcAs posts body to url with token ("" for none).
func rpcAs(t *testing.T, url, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestRefusalSaysWhereTheTokenIs: a 401 sends the client to the token the
// way this server was given it, OPENHUMAN_API_TOKEN (where the deployment
// says it set it) or the sha256 in config.toml, not to the other.
func TestRefusalSaysWhereTheTokenIs(t *testing.T) {
	const token = "oh_a-token-from-the-environment"
	fileHome := t.TempDir()
	entry := fmt.Sprintf("[[auth.tokens]]\nname = \"laptop\"\nsha256 = %q\nscopes = [\"read\"]\n", config.HashToken("oh_a-token-in-the-config-file"))
	if err := os.WriteFile(filepath.Join(fileHome, "config.toml"), []byte(entry), 0o600); err != nil {
		t.Fatal(err)
	}
	list := `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_items_list","params":{}}`
	for _, tc := range []struct {
		name    string
		home    string
		env     []string
		want    []string
		notWant string
	}{
		{"compose's .env", t.TempDir(), []string{"OPENHUMAN_API_TOKEN=" + token, "OPENHUMAN_API_TOKEN_FROM=in .env beside docker-compose.yml"},
			[]string{"send the value of OPENHUMAN_API_TOKEN in .env beside docker-compose.yml"}, "[[auth.tokens]]"},
		{"the environment", t.TempDir(), []string{"OPENHUMAN_API_TOKEN=" + token},
			[]string{"send the value of OPENHUMAN_API_TOKEN in serve's environment"}, "[[auth.tokens]]"},
		{"config.toml", fileHome, nil,
			[]string{"send a token whose sha256 is in [[auth.tokens]] of config.toml (`openhuman-core token new NAME` makes one)"}, "OPENHUMAN_API_TOKEN"},
		{"both", fileHome, []string{"OPENHUMAN_API_TOKEN=" + token},
			[]string{"send the value of OPENHUMAN_API_TOKEN in serve's environment, or a token whose sha256 is in [[auth.tokens]] of config.toml"}, fileHome},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := startServe(t, tc.home, tc.env...) + "/rpc"
			for _, sent := range []string{"oh_not-a-token-of-this-server", ""} {
				status, raw := rpcAs(t, url, sent, list)
				var e struct{ Error struct{ Message string } }
				_ = json.Unmarshal([]byte(raw), &e)
				body := e.Error.Message
				for _, want := range tc.want {
					if sent == "" {
						want = strings.Replace(want, "send ", "send Authorization: Bearer <token> with ", 1)
					}
					if status != http.StatusUnauthorized || !strings.Contains(body, want) {
						t.Errorf("sent %q: %d %s\nwant 401 saying %q", sent, status, body, want)
					}
				}
				if strings.Contains(body, tc.notWant) {
					t.Errorf("sent %q: %s\nnames %s, which this server does not use", sent, body, tc.notWant)
				}
			}
		})
	}
}

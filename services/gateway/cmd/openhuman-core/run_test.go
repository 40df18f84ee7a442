package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
)

func runMain(t *testing.T, env map[string]string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	m := &Main{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }, Environ: environ}
	code := m.Run(context.Background(), args)
	return code, out.String(), errb.String()
}

func TestCallCommand(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"OPENHUMAN_HOME": home}

	code, out, stderr := runMain(t, env, "", "call", "memory.learn", `{"text":"The CLI stores learnings too."}`)
	var learned struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(out), &learned) != nil || learned.ID == "" {
		t.Fatalf("learn: exit %d, out %q, err %q", code, out, stderr)
	}
	if stderr != "" {
		t.Errorf("a successful call wrote to stderr: %q", stderr)
	}
	code, out, _ = runMain(t, env, `{"query":"CLI learnings"}`, "--verbose=false", "call", "memory.fetch", "-")
	if code != 0 || !strings.Contains(out, learned.ID) || !strings.Contains(out, `"provenance": "cli"`) {
		t.Errorf("fetch from stdin: exit %d, out %s", code, out)
	}

	for _, tc := range []struct {
		name   string
		env    map[string]string
		args   []string
		code   int
		stderr string
	}{
		{"no command", env, nil, exitUsage, "Usage:"},
		{"unknown command", env, []string{"serve-everything"}, exitUsage, `unknown command "serve-everything"`},
		{"call without tool", env, []string{"call"}, exitUsage, "call needs a tool name"},
		{"arguments not JSON", env, []string{"call", "memory.list", "{limit:1}"}, exitUsage, "not valid JSON"},
		{"unknown tool", env, []string{"call", "memory.remember", "{}"}, exitUsage, "unknown MCP tool `memory.remember`"},
		{"a tool misspelt", env, []string{"call", "memory.recal", "{}"}, exitUsage, "unknown MCP tool `memory.recal`; did you mean memory.recall? tools/list"},
		{"a JSON-RPC method for a tool", env, []string{"call", "openhuman.memory_recall", "{}"}, exitUsage, "did you mean memory.recall?"},
		{"call with too many arguments", env, []string{"call", "memory.list", "{}", "{}"}, exitUsage, "call takes a tool name and at most one JSON object of arguments, got 3 words"},
		{"bad arguments", env, []string{"call", "memory.recall", "{}"}, exitUsage, "missing required argument `question`"},
		{"memory off", map[string]string{"OPENHUMAN_HOME": t.TempDir(), "OPENHUMAN_MEMORY_ENABLED": "false"}, []string{"call", "memory.list"}, exitFailure, "memory.list failed: memory is off: disabled in configuration"},
		{"NATS unreachable", map[string]string{"OPENHUMAN_HOME": home, "OPENHUMAN_NATS_URL": "nats://127.0.0.1:1", "OPENHUMAN_BUS_SIGNING_SEED": bustest.Keys().GatewaySeed}, []string{"call", "memory.list"}, exitFailure, "connecting to NATS at nats://127.0.0.1:1"},
		{"no signing seed", map[string]string{"OPENHUMAN_HOME": home, "OPENHUMAN_NATS_URL": "nats://127.0.0.1:1"}, []string{"call", "memory.list"}, exitFailure, "bus.signing_seed (OPENHUMAN_BUS_SIGNING_SEED) is not set"},
		{"a public key for a seed", map[string]string{"OPENHUMAN_HOME": home, "OPENHUMAN_BUS_SIGNING_SEED": bustest.Keys().GatewayKey}, []string{"call", "memory.list"}, exitFailure, "bus.signing_seed (OPENHUMAN_BUS_SIGNING_SEED) holds a public key"},
		{"a seed for a public key", map[string]string{"OPENHUMAN_HOME": home, "OPENHUMAN_BUS_GATEWAY_KEY": bustest.Keys().GatewaySeed}, []string{"call", "memory.list"}, exitFailure, "bus.gateway_key (OPENHUMAN_BUS_GATEWAY_KEY) holds a seed"},
		{"bad config", map[string]string{"OPENHUMAN_HOME": home, "OPENHUMAN_LOG_LEVEL": "shouty"}, []string{"mcp"}, exitFailure, "log.level"},
		{"mcp with arguments", env, []string{"mcp", "extra"}, exitUsage, "mcp takes no arguments"},
		{"debug logs asked for in the configuration", map[string]string{"OPENHUMAN_HOME": home, "OPENHUMAN_LOG_LEVEL": "debug"}, []string{"call", "memory.list"}, exitOK, "system up"},
		{"an empty home", env, []string{"--home", "", "call", "memory.list"}, exitUsage, `invalid value "" for flag -home: names no directory`},
		{"a file size below one byte", env, []string{"ingest", "--max-file-size", "-5", home}, exitUsage, "--max-file-size -5: give a number of bytes, 1 or more"},
		{"misspelt variable", map[string]string{"OPENHUMAN_HOME": home, "OPENHUMAN_SEARXNG_ENABLE": "true"}, []string{"call", "memory.list"}, exitOK, "did you mean OPENHUMAN_SEARXNG_ENABLED?"},
		{"named config missing", map[string]string{"OPENHUMAN_HOME": home, "OPENHUMAN_CONFIG": "/nonexistent.toml"}, []string{"call", "memory.list"}, exitFailure, "OPENHUMAN_CONFIG=/nonexistent.toml: no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runMain(t, tc.env, "", tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d (want %d), stderr %q (want %q)", code, tc.code, stderr, tc.stderr)
			}
		})
	}

	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, _ = runMain(t, env, "", args...)
		if code != 0 || !strings.HasPrefix(out, "openhuman-core ") {
			t.Errorf("%s: %d %q", args[0], code, out)
		}
	}
}

// Flags after a command's words are flags, not words: "ingest notes
// --home H" stores into H (before, "--home" was read as a path and the
// files went into the default home), the workspace named after the path
// is the workspace, and after "--" a word that looks like a flag is a path.
func TestFlagsAfterTheWords(t *testing.T) {
	src, home, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"notes.md": "# Notes\n\nThe boiler is serviced in October.\n"})
	env := map[string]string{"OPENHUMAN_HOME": elsewhere}
	if code, out, stderr := runMain(t, env, "", "ingest", src, "--home", home, "--workspace", "house"); code != 0 || !strings.Contains(out, "1 stored") {
		t.Fatalf("ingest: exit %d, out %q, err %q", code, out, stderr)
	}
	code, out, stderr := runMain(t, env, "", "call", "memory.list", `{"filter":{"workspace":"house"}}`, "--home", home)
	if code != 0 || !strings.Contains(out, "boiler") {
		t.Errorf("list in --home: exit %d, out %q, err %q", code, out, stderr)
	}
	if _, out, _ = runMain(t, env, "", "call", "memory.list"); strings.Contains(out, "boiler") {
		t.Errorf("the default home holds what was ingested with --home: %s", out)
	}
	if code, _, stderr = runMain(t, env, "", "ingest", "--home", home, "--", "--workspace"); code == 0 || !strings.Contains(stderr, "--workspace") {
		t.Errorf("after --, a flag-like word is a path: exit %d, err %q", code, stderr)
	}
	if code, out, _ = runMain(t, env, "", "token", "new", "laptop", "--scopes", "read,act", "--verbose"); code != 0 || !strings.Contains(out, `scopes = ["read","act"]`) {
		t.Errorf("token new with flags after its words: exit %d, out %q", code, out)
	}
	if code, out, stderr = runMain(t, env, "", "buskeys", "--verbose"); code != 0 || !strings.Contains(out, "BUS_GATEWAY_SEED=") {
		t.Errorf("buskeys with a flag after it: exit %d, out %q, err %q", code, out, stderr)
	}
	if code, _, stderr = runMain(t, env, "", "buskeys", "now"); code != exitUsage || !strings.Contains(stderr, "buskeys takes no arguments") {
		t.Errorf("buskeys with a word: exit %d, err %q", code, stderr)
	}
}

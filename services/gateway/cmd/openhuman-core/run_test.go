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

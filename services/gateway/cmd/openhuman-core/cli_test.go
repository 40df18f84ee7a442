package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandLine runs each real binary the way a person first does: asking
// for help and the version, and with a misspelt variable.
func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		name     string
		bin      string
		args     []string
		env      []string
		code     int
		stdout   []string // each must appear
		stderr   []string // each must appear; nil: stderr is empty
		noStdout bool
	}{
		{name: "core help", bin: "openhuman-core", args: []string{"--help"},
			stdout: []string{"Usage:", "OPENHUMAN_HOME", "OPENHUMAN_CONFIG", "OPENHUMAN_NATS_URL", "OPENHUMAN_HTTP_ADDR", "127.0.0.1:9300", "Ports:"}},
		{name: "core version flag", bin: "openhuman-core", args: []string{"--version"}, stdout: []string{"openhuman-core 0."}},
		{name: "core version command", bin: "openhuman-core", args: []string{"version"}, stdout: []string{"openhuman-core 0."}},
		{name: "memory help", bin: "openhuman-memory", args: []string{"--help"},
			stdout: []string{"Usage:", "OPENHUMAN_NATS_URL", "OPENHUMAN_MEMORY_PATH", "OPENHUMAN_METRICS_ADDR", "127.0.0.1:9301"}},
		{name: "agents help", bin: "openhuman-agents", args: []string{"--help"},
			stdout: []string{"Usage:", "OPENHUMAN_NATS_URL", "OPENHUMAN_APPROVAL_MODE", "127.0.0.1:9302"}},
		{name: "search help", bin: "openhuman-search", args: []string{"--help"},
			stdout: []string{"Usage:", "OPENHUMAN_NATS_URL", "OPENHUMAN_SEARXNG_ENABLED", "127.0.0.1:9303"}},
		{name: "search version", bin: "openhuman-search", args: []string{"--version"}, stdout: []string{"openhuman-search 0."}},
		{name: "core with a misspelt variable", bin: "openhuman-core", args: []string{"call", "memory.list"},
			env: []string{"OPENHUMAN_SEARXNG_ENABLE=true"}, stdout: []string{`"items"`},
			stderr: []string{"level=WARN", "OPENHUMAN_SEARXNG_ENABLE;", "did you mean OPENHUMAN_SEARXNG_ENABLED?"}},
		{name: "memory with a misspelt variable", bin: "openhuman-memory", env: []string{"OPENHUMAN_NAT_URL=nats://127.0.0.1:4222"}, code: 1,
			noStdout: true, stderr: []string{"level=WARN", "did you mean OPENHUMAN_NATS_URL?", "needs a NATS server"}},
		{name: "core with a missing config file", bin: "openhuman-core", args: []string{"call", "memory.list"},
			env: []string{"OPENHUMAN_CONFIG=/nonexistent.toml"}, code: 1, noStdout: true,
			stderr: []string{"OPENHUMAN_CONFIG=/nonexistent.toml: no such file"}},
		{name: "a command's own help", bin: "openhuman-core", args: []string{"ingest", "--help"},
			stdout: []string{"openhuman-core [flags] ingest PATH...", "--max-file-size", "--home DIR", "openhuman-core --help"}},
		{name: "serve with a port for an address", bin: "openhuman-core", args: []string{"serve", "--addr", "9413"}, code: 2, noStdout: true,
			stderr: []string{`--addr "9413": give HOST:PORT (127.0.0.1:9413 listens on this machine only`, "openhuman-core serve --help"}},
		{name: "serve with --port", bin: "openhuman-core", args: []string{"serve", "--port", "9413"}, code: 2, noStdout: true,
			stderr: []string{"-port", "serve takes its address as --addr HOST:PORT"}},
		{name: "a misspelt flag", bin: "openhuman-core", args: []string{"ingest", "--workspce", "a", "notes"}, code: 2, noStdout: true,
			stderr: []string{"did you mean --workspace?"}},
		{name: "call with its words swapped", bin: "openhuman-core", args: []string{"call", `{"question":"where?"}`, "memory.recall"}, code: 2, noStdout: true,
			stderr: []string{`the tool comes first, then its arguments: openhuman-core call memory.recall '{"question":"where?"}'`}},
		{name: "agents with a missing config file", bin: "openhuman-agents", args: []string{"--nats", "nats://127.0.0.1:1"},
			env: []string{"OPENHUMAN_CONFIG=/nonexistent.toml"}, code: 1, noStdout: true,
			stderr: []string{"OPENHUMAN_CONFIG=/nonexistent.toml: no such file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(filepath.Join(binDir, tc.bin), tc.args...)
			cmd.Env = testEnv(t.TempDir(), tc.env...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tc.code, errb.String())
			}
			for _, w := range tc.stdout {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			if tc.noStdout && out.Len() > 0 {
				t.Errorf("stdout: %q, want nothing", out.String())
			}
			if tc.stderr == nil && errb.Len() > 0 {
				t.Errorf("stderr: %q, want nothing", errb.String())
			}
			for _, w := range tc.stderr {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errb.String())
				}
			}
		})
	}
}

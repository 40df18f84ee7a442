package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/testbuf"
)

// binDir holds the real binaries, built once for every test here.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "openhuman-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	for _, pkg := range []string{
		".",
		"github.com/openhuman-go/openhuman-go/services/memory/cmd/openhuman-memory",
		"github.com/openhuman-go/openhuman-go/services/agents/cmd/openhuman-agents",
		"github.com/openhuman-go/openhuman-go/services/search/cmd/openhuman-search",
	} {
		name := "openhuman-core"
		if pkg != "." {
			name = filepath.Base(pkg)
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building", pkg, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// mcpProc is a real `openhuman-core mcp` process driven over its stdio, the
// way an MCP client drives it.
type mcpProc struct {
	profile string // the tool surface the process serves
	t       testing.TB
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan string
	stderr  *testbuf.Buffer
}

func testEnv(home string, extra ...string) []string {
	env := []string{"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + home, "OPENHUMAN_HOME=" + home}
	return append(append(append(env, modelsOff(extra)...), busEnv(bustest.Keys().Gateway())...), extra...)
}

// modelsOff is OPENHUMAN_MODELS=off unless env points at a model hub of
// its own (a later OPENHUMAN_MODELS in env wins): tests never reach the
// public hub (docs/development.md).
func modelsOff(env []string) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "OPENHUMAN_MODELS_HUB_URL=") {
			return nil
		}
	}
	return []string{"OPENHUMAN_MODELS=off"}
}

// busEnv is the bus keys' environment of a binary configured with b: the
// tests' processes sign, and trust, as a deployment's would.
func busEnv(b config.Bus) []string {
	return []string{"OPENHUMAN_BUS_SIGNING_SEED=" + b.SigningSeed, "OPENHUMAN_BUS_GATEWAY_KEY=" + b.GatewayKey, "OPENHUMAN_BUS_AGENTS_KEY=" + b.AgentsKey}
}

func startMCP(tb testing.TB, home string, extraEnv ...string) *mcpProc {
	tb.Helper()
	cmd := exec.Command(filepath.Join(binDir, "openhuman-core"), "mcp")
	cmd.Env = testEnv(home, extraEnv...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	p := &mcpProc{t: tb, cmd: cmd, stdin: stdin, lines: make(chan string, 1024), stderr: &testbuf.Buffer{}, profile: contract.ProfileV2}
	for _, e := range extraEnv {
		if v, ok := strings.CutPrefix(e, "OPENHUMAN_MCP_PROFILE="); ok {
			p.profile = v
		}
	}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	tb.Cleanup(func() {
		_ = p.stdin.Close()
		waitExit(cmd, 10*time.Second)
	})
	return p
}

// startProcess starts cmd with its stderr (and its stdout, unless the
// caller took that) captured, and stops it with SIGINT when the test ends,
// failing the test if it does not exit within 15 s. The capture is returned
// for failure messages.
func startProcess(t *testing.T, cmd *exec.Cmd, what string) *testbuf.Buffer {
	t.Helper()
	stderr := &testbuf.Buffer{}
	cmd.Stderr = stderr
	if cmd.Stdout == nil {
		cmd.Stdout = stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		if _, exited := waitExit(cmd, 15*time.Second); !exited {
			t.Errorf("%s did not stop on SIGINT\n%s", what, stderr.String())
		}
	})
	return stderr
}

// waitExit waits up to d for cmd to exit and returns its exit code; past d
// it kills the process and reports false.
func waitExit(cmd *exec.Cmd, d time.Duration) (int, bool) {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), true
		}
		return 0, true
	case <-time.After(d):
		_ = cmd.Process.Kill()
		return -1, false
	}
}

func (p *mcpProc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("writing to the server: %v\nstderr:\n%s", err, p.stderr)
	}
}

// next returns the next response line, decoded.
func (p *mcpProc) next() map[string]any {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("the server closed stdout\nstderr:\n%s", p.stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			p.t.Fatalf("not JSON: %q", l)
		}
		return m
	case <-time.After(30 * time.Second):
		p.t.Fatalf("no response within 30s\nstderr:\n%s", p.stderr)
	}
	return nil
}

func (p *mcpProc) request(id int, method string, params any) map[string]any {
	p.t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, _ := json.Marshal(msg)
	p.send(string(b))
	resp := p.next()
	if resp["id"] != float64(id) {
		p.t.Fatalf("response to %d has id %v: %v", id, resp["id"], resp)
	}
	return resp
}

func (p *mcpProc) initialize(clientName string) map[string]any {
	p.t.Helper()
	info := map[string]any{"version": "1"}
	if clientName != "" {
		info["name"] = clientName
	}
	resp := p.request(0, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": info})
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return resp
}

// tool calls a tool that must succeed and returns its decoded text content.
func (p *mcpProc) tool(id int, name string, args any) map[string]any {
	p.t.Helper()
	resp := p.request(id, "tools/call", map[string]any{"name": name, "arguments": args})
	res, ok := resp["result"].(map[string]any)
	if !ok || res["isError"] == true {
		p.t.Fatalf("%s failed: %v", name, resp)
	}
	var out map[string]any
	text := res["content"].([]any)[0].(map[string]any)["text"].(string)
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		p.t.Fatalf("%s: text content is not JSON: %q", name, text)
	}
	// Every result must match the output schema the registry publishes.
	if tl, ok := contract.ToolFor(p.profile, name); ok {
		obj, err := contract.DecodeArguments(json.RawMessage(text))
		if err == nil {
			err = tl.Output.Validate(obj)
		}
		if err != nil {
			p.t.Errorf("%s: result does not match its output schema: %v", name, err)
		}
	}
	return out
}

// closeAndWait closes stdin and returns the exit code.
func (p *mcpProc) closeAndWait() int {
	p.t.Helper()
	_ = p.stdin.Close()
	code, exited := waitExit(p.cmd, 15*time.Second)
	if !exited {
		p.t.Fatalf("the server did not exit after stdin closed\nstderr:\n%s", p.stderr)
	}
	return code
}

func mustContain(t testing.TB, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%q does not contain %q", s, sub)
	}
}

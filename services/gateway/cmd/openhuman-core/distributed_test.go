package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
)

func startService(t *testing.T, name, home, natsURL string, extraEnv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, name))
	env := []string{"OPENHUMAN_NATS_URL=" + natsURL}
	if name == "openhuman-agents" {
		env = append(env, busEnv(bustest.Keys().Agents())...)
	}
	cmd.Env = testEnv(home, append(env, extraEnv...)...)
	startProcess(t, cmd, name)
	return cmd
}

func toolNames(p *mcpProc, id int) []string {
	var names []string
	for _, tl := range p.request(id, "tools/list", nil)["result"].(map[string]any)["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	return names
}

// waitForTools polls tools/list until it holds want (services register
// asynchronously after their processes start).
func waitForTools(t *testing.T, p *mcpProc, want string, present bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for id := 100; ; id++ {
		names := strings.Join(toolNames(p, id), " ")
		if strings.Contains(names, want) == present {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tools/list = %s; waiting for %s present=%v\nstderr:\n%s", names, want, present, p.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestDistributed runs the gateway, memory and agents as separate processes
// on a real NATS server listening on a random port, as compose does.
func TestDistributed(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	url := ns.ClientURL()
	memHome, gwHome := t.TempDir(), t.TempDir()

	memMetrics := freePort(t)
	memory := startService(t, "openhuman-memory", memHome, url, "OPENHUMAN_METRICS_ADDR="+memMetrics)
	startService(t, "openhuman-agents", t.TempDir(), url, "OPENHUMAN_METRICS_ADDR=127.0.0.1:0")
	p := startMCP(t, gwHome, "OPENHUMAN_NATS_URL="+url)
	p.initialize("Zed")
	waitForTools(t, p, "memory.learn", true)
	waitForTools(t, p, "agent.list_subagents", true)

	id := p.tool(1, "memory.learn", map[string]any{"text": "Distributed mode stores memory in the memory service's own database."})["id"]
	recalled := p.tool(2, "memory.recall", map[string]any{"question": "Where does distributed mode store memory?"})
	if cites := recalled["citations"].([]any); len(cites) != 1 || cites[0].(map[string]any)["id"] != id ||
		cites[0].(map[string]any)["meta"].(map[string]any)["provenance"] != "mcp:zed" {
		t.Fatalf("recall = %v", recalled)
	}
	if _, err := os.Stat(filepath.Join(memHome, "memory.db")); err != nil {
		t.Errorf("the memory process did not write its own database: %v", err)
	}
	if _, err := os.Stat(filepath.Join(gwHome, "memory.db")); err == nil {
		t.Error("the gateway opened a database although it only dispatches")
	}
	// The memory process serves its own metrics.
	mresp, err := http.Get("http://" + memMetrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	scraped, _ := io.ReadAll(mresp.Body)
	mresp.Body.Close()
	for _, want := range []string{`openhuman_build_info{binary="openhuman-memory"`, `openhuman_service_requests_total{method="learn",outcome="ok",service="memory"} 1`, `openhuman_memory_items{kind="learning"} 1`, `openhuman_memory_vectors{model="hash-glove-v1-256"} 1`} {
		mustContain(t, string(scraped), want)
	}

	defs := p.request(3, "tools/call", map[string]any{"name": "agent.list_subagents", "arguments": map[string]any{}})
	if sc := defs["result"].(map[string]any)["structuredContent"].(map[string]any)["definitions"].([]any); len(sc) != 15 {
		t.Errorf("%d definitions", len(sc))
	}

	// The memory process goes away: calls fail fast and say why, the tools
	// leave tools/list, and the gateway keeps serving.
	_ = memory.Process.Kill()
	_ = memory.Wait()
	start := time.Now()
	resp := p.request(4, "tools/call", map[string]any{"name": "memory.list", "arguments": map[string]any{}})
	res := resp["result"].(map[string]any)
	text := res["content"].([]any)[0].(map[string]any)["text"].(string)
	if res["isError"] != true || !strings.Contains(text, "memory.list failed: the memory service is not running") {
		t.Errorf("with memory down: %v", resp)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("failing took %s", took)
	}
	waitForTools(t, p, "memory.learn", false)

	// It comes back, with everything it was told.
	startService(t, "openhuman-memory", memHome, url, "OPENHUMAN_METRICS_ADDR=127.0.0.1:0")
	waitForTools(t, p, "memory.learn", true)
	if list := p.tool(5, "memory.list", map[string]any{}); len(list["items"].([]any)) != 1 {
		t.Errorf("after restart: %v", list)
	}
}

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/testbuf"
)

// The smoke tests of the MCP server's documentation, verbatim.
const (
	smokeTools = `printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"smoke","version":"0"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
  | openhuman-core mcp`

	smokeResources = `printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"smoke","version":"0"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"resources/list"}' \
  '{"jsonrpc":"2.0","id":3,"method":"resources/templates/list"}' \
  '{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"openhuman://prompts/identity"}}' \
  | openhuman-core mcp`
)

// runSmoke runs a documented smoke test in bash with the fresh binary on
// PATH and returns its stdout lines, each checked to be a JSON-RPC response.
func runSmoke(t *testing.T, script string, wantLines int) []map[string]any {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = testEnv(home)
	var stderr testbuf.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("smoke test failed: %v\nstderr:\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != wantLines {
		t.Fatalf("%d lines on stdout, want %d:\n%s", len(lines), wantLines, out)
	}
	var resps []map[string]any
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d is not JSON: %q", i+1, l)
		}
		if m["jsonrpc"] != "2.0" || m["id"] != float64(i+1) || m["result"] == nil || m["error"] != nil {
			t.Fatalf("line %d is not a successful JSON-RPC response to id %d: %s", i+1, i+1, l)
		}
		resps = append(resps, m)
	}
	if strings.Contains(string(out), "level=") {
		t.Error("log output reached stdout")
	}
	return resps
}

func TestSmokeTools(t *testing.T) {
	for i := 0; i < 3; i++ { // piped EOF once lost responses at random; repeat
		resps := runSmoke(t, smokeTools, 2)
		caps, _ := json.Marshal(resps[0]["result"].(map[string]any)["capabilities"])
		if string(caps) != `{"resources":{"listChanged":false,"subscribe":false},"tools":{}}` {
			t.Errorf("capabilities = %s", caps)
		}
		init := resps[0]["result"].(map[string]any)
		if init["protocolVersion"] != "2025-06-18" || init["serverInfo"].(map[string]any)["name"] != "openhuman-core" || init["instructions"] == "" {
			t.Errorf("initialize = %v", init)
		}
		var names []string
		for _, tool := range resps[1]["result"].(map[string]any)["tools"].([]any) {
			names = append(names, tool.(map[string]any)["name"].(string))
		}
		if got := strings.Join(names[:5], " "); got != "memory.recall memory.fetch memory.list memory.learn memory.forget" {
			t.Errorf("tools = %v", names)
		}
	}
}

func TestSmokeToolsWireFormat(t *testing.T) {
	cmd := exec.Command("bash", "-c", smokeTools)
	cmd.Env = testEnv(t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	// The capabilities exactly as the reference prints them, byte for byte.
	mustContain(t, string(out), `"capabilities":{"tools":{},"resources":{"subscribe":false,"listChanged":false}}`)
	mustContain(t, string(out), `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18",`)
}

func TestSmokeResources(t *testing.T) {
	resps := runSmoke(t, smokeResources, 4)
	list := resps[1]["result"].(map[string]any)["resources"].([]any)
	if len(list) != 18 {
		t.Errorf("%d resources, want 3 documents + 15 sub-agent prompts", len(list))
	}
	for _, r := range list {
		if r.(map[string]any)["mimeType"] != "text/markdown" {
			t.Errorf("resource %v is not text/markdown", r)
		}
	}
	if tpl := resps[2]["result"].(map[string]any)["resourceTemplates"].([]any); len(tpl) != 0 {
		t.Errorf("resourceTemplates = %v", tpl)
	}
	contents := resps[3]["result"].(map[string]any)["contents"].([]any)[0].(map[string]any)
	if contents["uri"] != "openhuman://prompts/identity" || contents["mimeType"] != "text/markdown" || !strings.HasPrefix(contents["text"].(string), "# Identity\n") {
		t.Errorf("identity = %v", contents)
	}
}

// TestDocumentedSmokeTests checks that the documentation shows the smoke
// tests run here, and exports no variable into the reader's shell.
func TestDocumentedSmokeTests(t *testing.T) {
	for file, scripts := range map[string][]string{
		"README.md":           {smokeTools},
		"docs/smoke-tests.md": {smokeTools, smokeResources, smokeV1},
		"docs/memory.md":      {smokeV1},
	} {
		b, err := os.ReadFile("../../../../" + file)
		if err != nil {
			t.Fatal(err)
		}
		for _, script := range scripts {
			if !strings.Contains(string(b), "```bash\n"+script+"\n```") {
				t.Errorf("%s does not show this smoke test as run here:\n%s", file, script)
			}
		}
		if strings.Contains(string(b), "export OPENHUMAN_") {
			t.Errorf("%s exports an OPENHUMAN_ variable, which changes every later command in the reader's shell", file)
		}
	}
}

package main

import (
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/llm"
	"github.com/openhuman-go/openhuman-go/pkg/llm/llmtest"
)

// TestElicitationOverStdio: a stdio client that declared elicitation runs
// a note taker with approval.mode = ask; the server asks it on stdout
// (elicitation/create) while the run waits, the client declines, and the
// run ends with the write refused, which approval_list records as denied
// by the client.
func TestElicitationOverStdio(t *testing.T) {
	model := llmtest.New(t, func(_ int, req llm.Request) llmtest.Reply {
		if llmtest.LastToolResult(req) == "" {
			return llmtest.Call("memory_learn", `{"text":"The zqstdioword door is locked at eight.","kind":"fact"}`)
		}
		return llmtest.Text("Done: " + llmtest.LastToolResult(req))
	})
	p := startMCP(t, t.TempDir(), "OPENHUMAN_LLM_BASE_URL="+model.URL, "OPENHUMAN_LLM_MODEL=toy", "OPENHUMAN_APPROVAL_MODE=ask")
	p.request(0, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"elicitation": map[string]any{}},
		"clientInfo": map[string]any{"name": "Claude Desktop", "version": "1"}})
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"agent.run_subagent","arguments":{"agent_id":"note_taker","prompt":"Note the door."}}}`)

	ask := p.next()
	params, _ := ask["params"].(map[string]any)
	if ask["method"] != "elicitation/create" || ask["id"] == nil || !strings.Contains(params["message"].(string), "note_taker wants to call memory.learn") ||
		!strings.Contains(params["message"].(string), "zqstdioword") {
		t.Fatalf("the server did not ask: %v", ask)
	}
	id, _ := ask["id"].(string)
	p.send(`{"jsonrpc":"2.0","id":"` + id + `","result":{"action":"decline"}}`)

	resp := p.next()
	if resp["id"] != float64(7) {
		t.Fatalf("after the answer: %v", resp)
	}
	sc := resp["result"].(map[string]any)["structuredContent"].(map[string]any)
	if text := sc["response"].(string); !strings.Contains(text, "denied by the approver: declined in mcp:claude-desktop") {
		t.Fatalf("the run: %v", sc)
	}
	calls := sc["tool_calls"].([]any)
	if len(calls) != 1 || calls[0].(map[string]any)["ok"] != false {
		t.Fatalf("tool calls %v", calls)
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
	"github.com/openhuman-go/openhuman-go/pkg/audit/sqlite"
	"github.com/openhuman-go/openhuman-go/pkg/llm"
	"github.com/openhuman-go/openhuman-go/pkg/llm/llmtest"
)

// librarianModel plays the librarian: it recalls the question, then
// answers from what memory returned, citing the item. Memory's own recall
// asks the same model to write its answer; that gets a cited sentence.
func librarianModel(_ int, req llm.Request) llmtest.Reply {
	if llmtest.Agent(req) != "librarian" {
		return llmtest.Text("Black, no sugar [1].")
	}
	result := llmtest.LastToolResult(req)
	if result == "" {
		args, _ := json.Marshal(map[string]string{"question": req.Messages[1].Content})
		return llmtest.Call("memory_recall", string(args))
	}
	var recalled struct {
		Citations []struct {
			ID      string `json:"id"`
			Snippet string `json:"snippet"`
		} `json:"citations"`
	}
	if json.Unmarshal([]byte(result), &recalled) != nil || len(recalled.Citations) == 0 {
		return llmtest.Text("I don't know — nothing in memory covers this.")
	}
	c := recalled.Citations[0]
	return llmtest.Text(fmt.Sprintf("%s [1]\n\n[1] %s", c.Snippet, c.ID))
}

func TestLibrarianAnswersFromMemoryOverMCP(t *testing.T) {
	model := llmtest.New(t, librarianModel)
	p := startMCP(t, t.TempDir(), "OPENHUMAN_LLM_BASE_URL="+model.URL, "OPENHUMAN_LLM_MODEL=toy")
	p.initialize("Claude Desktop")
	id := p.tool(1, "memory.learn", map[string]any{"text": "Maya drinks her coffee black, no sugar."})["id"].(string)

	resp := p.request(2, "tools/call", map[string]any{"name": "agent.run_subagent",
		"arguments": map[string]any{"agent_id": "librarian", "prompt": "How does Maya take her coffee?"}})
	res := resp["result"].(map[string]any)
	if res["isError"] == true {
		t.Fatalf("run failed: %v", res)
	}
	sc := res["structuredContent"].(map[string]any)
	want := "Maya drinks her coffee black, no sugar. [1]\n\n[1] " + id
	if sc["agent_id"] != "librarian" || sc["response"] != want || sc["steps"] != float64(2) || sc["model"] != "toy" {
		t.Fatalf("structuredContent %v", sc)
	}
	calls := sc["tool_calls"].([]any)
	if len(calls) != 1 || calls[0].(map[string]any)["tool"] != "memory.recall" || calls[0].(map[string]any)["ok"] != true {
		t.Fatalf("tool calls %v", calls)
	}
	// The model was offered the librarian's tools only, and what it read
	// came from the real memory.
	var reqs []llm.Request
	for _, r := range model.Requests() {
		if llmtest.Agent(r) == "librarian" {
			reqs = append(reqs, r)
		}
	}
	if len(reqs) != 2 {
		t.Fatalf("%d librarian turns", len(reqs))
	}
	var offered []string
	for _, tl := range reqs[0].Tools {
		offered = append(offered, tl.Function.Name)
	}
	if strings.Join(offered, ",") != "memory_recall,memory_fetch,memory_list" {
		t.Errorf("offered %v", offered)
	}
	if recalled := llmtest.LastToolResult(reqs[1]); !strings.Contains(recalled, id) || !strings.Contains(recalled, `"answer":"Black, no sugar [1]."`) {
		t.Errorf("the recall result did not come from memory: %.300q", recalled)
	}
}

func TestRunSubagentWithoutAModel(t *testing.T) {
	p := startMCP(t, t.TempDir())
	p.initialize("Zed")
	text := p.toolError(1, "agent.run_subagent", map[string]any{"agent_id": "librarian", "prompt": "x"})
	mustContain(t, text, "agent.run_subagent failed: agent.run_subagent needs a language model: set [llm] model")
}

// TestApprovalOverHTTP runs `serve` with approval.mode = ask: a note taker
// started over MCP waits until its write is approved over JSON-RPC, and
// the write is audited with both the client and the agent.
func TestApprovalOverHTTP(t *testing.T) {
	model := llmtest.New(t, func(_ int, req llm.Request) llmtest.Reply {
		if llmtest.LastToolResult(req) == "" {
			return llmtest.Call("memory_learn", `{"text":"Standup moves to 9:30 on Mondays.","kind":"fact"}`)
		}
		return llmtest.Text("Stored.")
	})
	home := t.TempDir()
	base := startServe(t, home, "OPENHUMAN_LLM_BASE_URL="+model.URL, "OPENHUMAN_LLM_MODEL=toy", "OPENHUMAN_APPROVAL_MODE=ask")
	sid := mcpHTTPSession(t, base)

	done := make(chan map[string]any, 1)
	go func() {
		done <- mcpHTTPResult(t, base, sid, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"agent.run_subagent","arguments":{"agent_id":"note_taker","prompt":"Note: standup moves to 9:30 on Mondays."}}}`)
	}()
	var pending []any
	waitFor(t, 15*time.Second, func() bool {
		pending = rpcResult(t, base, "openhuman.approval_list", `{}`)["pending"].([]any)
		return len(pending) == 1
	}, func() string { return "nothing waits for approval" })
	p := pending[0].(map[string]any)
	if p["agent_id"] != "note_taker" || p["tool"] != "memory.learn" || p["arguments"].(map[string]any)["text"] != "Standup moves to 9:30 on Mondays." || p["client"] != "mcp:prom-test/agent:note_taker" {
		t.Fatalf("pending %v", p)
	}
	decided := rpcResult(t, base, "openhuman.approval_decide", fmt.Sprintf(`{"id":%q,"approve":true}`, p["id"]))
	if decided["approved"] != true {
		t.Fatalf("decide: %v", decided)
	}
	var out map[string]any
	select {
	case out = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("the run did not finish after its approval")
	}
	sc := out["result"].(map[string]any)["structuredContent"].(map[string]any)
	if sc["response"] != "Stored." || sc["tool_calls"].([]any)[0].(map[string]any)["ok"] != true {
		t.Fatalf("run: %v", out)
	}
	items := rpcResult(t, base, "openhuman.memory_items_list", `{}`)["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["meta"].(map[string]any)["provenance"] != "mcp:prom-test/agent:note_taker" {
		t.Fatalf("items %v", items)
	}
	l, err := sqlite.Open(filepath.Join(home, "audit.db"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rows, _ := l.Recent(context.Background(), 10, false)
	key, err := audit.LoadKey(filepath.Join(home, audit.KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	// Newest first: the run, the agent's write, and the decision that let it through.
	if len(rows) != 3 || !rows[1].Success || rows[1].Client != "mcp:prom-test/agent:note_taker" || rows[1].ResultingID != audit.Pseudonym(key, items[0].(map[string]any)["id"].(string)) ||
		rows[0].ToolName != "agent.run_subagent" || rows[0].Client != "mcp:prom-test" ||
		rows[2].ToolName != "approval.decide" || rows[2].Client != "rpc" || rows[2].ArgsSummary["approve"] != true {
		t.Fatalf("audit %+v", rows)
	}
	// Deciding it again: nothing waits.
	resp, err := http.Post(base+"/rpc", "application/json", strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"openhuman.approval_decide","params":{"id":%q,"approve":false}}`, p["id"])))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	mustContain(t, string(b), "no call waits for approval")
}

// rpcResult calls a JSON-RPC method that must succeed.
func rpcResult(t *testing.T, base, method, params string) map[string]any {
	t.Helper()
	resp, err := http.Post(base+"/rpc", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Result map[string]any `json:"result"`
		Error  any            `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Result == nil {
		t.Fatalf("%s: %v %v", method, out.Error, err)
	}
	return out.Result
}

// mcpHTTPResult posts one MCP message in a session and decodes the answer.
func mcpHTTPResult(t *testing.T, base, sid, body string) map[string]any {
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return nil
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Error(err)
	}
	return out
}

func TestActGateOverMCP(t *testing.T) {
	p := startMCP(t, t.TempDir(), "OPENHUMAN_MAX_ACTIONS_PER_HOUR=1")
	p.initialize("Cursor")
	p.tool(1, "memory.learn", map[string]any{"text": "The first act is within the budget."})
	resp := p.request(2, "tools/call", map[string]any{"name": "memory.learn", "arguments": map[string]any{"text": "The second is not."}})
	e, _ := resp["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32602) || e["message"] != "Rate limit exceeded: action budget exhausted" {
		t.Fatalf("over budget: %v", resp)
	}

	ro := startMCP(t, t.TempDir(), "OPENHUMAN_AUTONOMY=readonly")
	ro.initialize("Cursor")
	resp = ro.request(1, "tools/call", map[string]any{"name": "memory.forget", "arguments": map[string]any{"ids": []string{"x"}}})
	e, _ = resp["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32602) || e["message"] != "Security policy: read-only mode, cannot perform 'memory.forget'" {
		t.Fatalf("read-only: %v", resp)
	}
	ro.tool(2, "memory.list", map[string]any{}) // reads still work
}

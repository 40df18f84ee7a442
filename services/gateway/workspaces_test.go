package gateway_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/llm"
	"github.com/openhuman-go/openhuman-go/pkg/llm/llmtest"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/transfer"
)

// A sub-agent run by a caller limited to workspace a is limited to it too:
// whatever its model asks memory for (fetch, list, recall), the answers it
// reads are a's, and so is what memory's own model writes recall from.
func TestSubagentOfAScopedCallerReadsOnlyItsWorkspace(t *testing.T) {
	model := llmtest.New(t, func(_ int, req llm.Request) llmtest.Reply {
		if llmtest.Agent(req) != "librarian" {
			return llmtest.Text("Lena owns the Orbit roadmap [1].")
		}
		steps := 0
		for _, m := range req.Messages {
			if m.Role == "tool" {
				steps++
			}
		}
		switch steps {
		case 0:
			return llmtest.Call("memory_fetch", `{"query":"Orbit roadmap Lena","limit":100}`)
		case 1:
			return llmtest.Call("memory_list", `{"limit":100}`)
		case 2:
			return llmtest.Call("memory_recall", `{"question":"Who owns the Orbit roadmap?"}`)
		}
		return llmtest.Text("Lena owns the Orbit roadmap [1].")
	})
	home := withTokens(t, "a-only=read,act")
	gw := gatewaytest.StartIn(t, home, map[string]string{"OPENHUMAN_LLM_BASE_URL": model.URL, "OPENHUMAN_LLM_MODEL": "toy"}, gateway.Options{})
	ctx := context.Background()
	admin := contract.CallContext{Source: "cli", Transport: contract.TransportCLI}
	for _, note := range []struct{ text, ws string }{
		{"Lena owns the Orbit roadmap for Acme.", "a"},
		{"Beta's Orbit roadmap is owned by Lena and Raj.", "b"},
		{"Orbit roadmap Lena: Beta's secret budget.", "b"},
	} {
		args, _ := json.Marshal(map[string]any{"text": note.text, "workspace": note.ws})
		if _, err := gw.CallTool(ctx, "memory.learn", args, admin); err != nil {
			t.Fatal(err)
		}
	}
	scoped := contract.CallContext{Source: "mcp:client", Transport: contract.TransportMCPHTTP, Token: "a-only", Workspaces: []string{"a"}}
	raw, err := gw.CallTool(ctx, "agent.run_subagent", json.RawMessage(`{"agent_id":"librarian","prompt":"Who owns the Orbit roadmap?"}`), scoped)
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		ToolCalls []struct {
			Tool string `json:"tool"`
			OK   bool   `json:"ok"`
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal(raw, &run); err != nil || len(run.ToolCalls) != 3 {
		t.Fatalf("run %s: %v", raw, err)
	}
	for _, c := range run.ToolCalls {
		if !c.OK {
			t.Errorf("%s failed: %s", c.Tool, raw)
		}
	}
	var read, memoryModel []string
	for _, req := range model.Requests() {
		if llmtest.Agent(req) == "librarian" {
			if r := llmtest.LastToolResult(req); r != "" {
				read = append(read, r)
			}
			continue
		}
		for _, m := range req.Messages {
			memoryModel = append(memoryModel, m.Content)
		}
	}
	if len(read) != 3 || len(memoryModel) == 0 {
		t.Fatalf("the librarian read %d results, memory's model %d messages", len(read), len(memoryModel))
	}
	for i, r := range read {
		if !strings.Contains(r, "Lena owns the Orbit roadmap for Acme.") {
			t.Errorf("%s did not return a's note: %.300s", run.ToolCalls[i].Tool, r)
		}
		if strings.Contains(r, "Beta") {
			t.Errorf("%s showed the sub-agent b's notes: %.500s", run.ToolCalls[i].Tool, r)
		}
	}
	if shown := strings.Join(memoryModel, "\n"); strings.Contains(shown, "Beta") {
		t.Errorf("recall showed memory's model b's notes: %.500s", shown)
	}
}

// TestWorkspaceNamesAtTheTools: a workspace named in a tool's arguments is
// checked by the service that serves the tool (learn, the read filter,
// ingest), and one that is no workspace name is INVALID_REQUEST naming
// the field, before anything is stored.
func TestWorkspaceNamesAtTheTools(t *testing.T) {
	gw := gatewaytest.Start(t, nil, gateway.Options{})
	ctx := context.Background()
	cc := contract.CallContext{Source: "mcp:test", Transport: contract.TransportMCPStdio}
	for _, c := range []struct{ tool, args, field string }{
		{"memory.learn", `{"text":"Deploys are on Tuesdays.","workspace":"../../x"}`, "workspace"},
		{"memory.learn", `{"text":"Deploys are on Tuesdays.","workspace":"wo\u0000rk"}`, "workspace"},
		{"memory.learn", `{"text":"Deploys are on Tuesdays.","workspace":"` + strings.Repeat("w", 1024) + `"}`, "workspace"},
		{"memory.fetch", `{"query":"deploys","filter":{"workspace":"a/b"}}`, "filter.workspace"},
		{"memory.list", `{"filter":{"workspace":"tab\there"}}`, "filter.workspace"},
	} {
		_, err := gw.CallTool(ctx, c.tool, json.RawMessage(c.args), cc)
		if e := contract.AsError(err); contract.ErrorCode(err) != contract.CodeInvalidRequest || e.Data["field"] != c.field ||
			!strings.Contains(e.Message, "a workspace name is 1 to 128 printable characters") {
			t.Errorf("%s %.60s: %v", c.tool, c.args, err)
		}
	}
	raw, err := transfer.Ingest(ctx, gw, []json.RawMessage{json.RawMessage(`{"source_id":"/n/a.md","source_kind":"file","display_name":"a.md","content":"# A","workspace":"../../x"}`)}, cc)
	if e := contract.AsError(err); contract.ErrorCode(err) != contract.CodeInvalidRequest || e.Data["field"] != "files[0].workspace" {
		t.Errorf("ingest: %s %v", raw, err)
	}
	raw, _ = gw.CallTool(ctx, "memory.list", nil, cc)
	if strings.Contains(string(raw), `"id"`) {
		t.Errorf("something was stored: %s", raw)
	}
}

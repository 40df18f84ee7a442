package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/llm"
	"github.com/openhuman-go/openhuman-go/pkg/llm/llmtest"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
)

// noteTaker is a model whose note taker learns text, then says what came
// of it.
func noteTaker(text string) func(int, llm.Request) llmtest.Reply {
	return func(_ int, req llm.Request) llmtest.Reply {
		if llmtest.LastToolResult(req) == "" {
			return llmtest.Call("memory_learn", `{"text":"`+text+`","kind":"fact"}`)
		}
		return llmtest.Text("Done: " + llmtest.LastToolResult(req))
	}
}

// startAsking is a server over the real system with approval.mode = ask and
// a note taker that learns text.
func startAsking(t *testing.T, text string) (*Server, *gateway.Gateway) {
	model := llmtest.New(t, noteTaker(text))
	env := map[string]string{"OPENHUMAN_LLM_BASE_URL": model.URL, "OPENHUMAN_LLM_MODEL": "toy", "OPENHUMAN_APPROVAL_MODE": "ask"}
	gw := gatewaytest.Start(t, env, gateway.Options{Timeout: 30 * time.Second})
	return New(gw, &Options{Version: "test"}), gw
}

// runCall is a 2026-07-28 tools/call of the note taker from a client that
// takes elicitation; extra are more members of params.
func runCall(id int, prompt, extra string) string {
	meta := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"Round Trip","version":"1"}`
	if extra != "" {
		extra = "," + extra
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"agent.run_subagent","arguments":{"agent_id":"note_taker","prompt":%q}%s,"_meta":{%s}}}`,
		id, prompt, extra, meta)
}

// asked checks an input_required result and returns its requestState.
func asked(t *testing.T, resp map[string]any, text string) string {
	t.Helper()
	res, _ := resp["result"].(map[string]any)
	reqs, _ := res["inputRequests"].(map[string]any)
	q, _ := reqs["approval"].(map[string]any)
	params, _ := q["params"].(map[string]any)
	msg, _ := params["message"].(string)
	meta, _ := res["_meta"].(map[string]any)
	if res["resultType"] != "input_required" || q["method"] != "elicitation/create" || params["mode"] != "form" ||
		!strings.Contains(msg, "note_taker wants to call memory.learn") || !strings.Contains(msg, text) ||
		params["requestedSchema"] == nil || meta[MetaServerInfo] == nil || res["content"] != nil {
		t.Fatalf("not asked: %v", resp)
	}
	state, _ := res["requestState"].(string)
	if state == "" {
		t.Fatalf("no requestState: %v", res)
	}
	return state
}

// stored reports whether memory holds text.
func stored(t *testing.T, gw *gateway.Gateway, text string) bool {
	t.Helper()
	raw, err := gw.CallTool(context.Background(), "memory.list", json.RawMessage(`{}`), contract.CallContext{Source: "mcp:test", Transport: contract.TransportMCPStdio})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(raw), text)
}

// TestRoundTripApproval: a 2026-07-28 client that takes elicitation is
// answered input_required while the note taker's write waits for approval;
// its retry with the answer decides it, each retry on a session of its
// own as on another replica, and gets the run's result. Approved, the
// note is stored; denied or declined, it is not.
func TestRoundTripApproval(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		stored       bool
		says         string
	}{
		{"approve", `{"action":"accept","content":{"approve":true}}`, true, `"id"`},
		{"deny", `{"action":"accept","content":{"approve":false,"note":"not that"}}`, false, "denied by the approver: not that"},
		{"decline", `{"action":"decline"}`, false, "denied by the approver: declined in mcp:round-trip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := "The zq" + tc.name + "word gate opens at nine."
			s, gw := startAsking(t, text)
			state := asked(t, handle(t, s, NewSession(contract.TransportMCPHTTP), runCall(1, "Note the gate.", "")), text)
			resp := handle(t, s, NewSession(contract.TransportMCPHTTP),
				runCall(2, "Note the gate.", `"inputResponses":{"approval":`+tc.answer+`},"requestState":"`+state+`"`))
			res := completed(t, resp)
			sc, _ := res["structuredContent"].(map[string]any)
			calls, _ := sc["tool_calls"].([]any)
			if len(calls) != 1 || calls[0].(map[string]any)["ok"] != tc.stored || !strings.Contains(fmt.Sprint(sc["response"]), tc.says) {
				t.Fatalf("the run: %v", res)
			}
			if got := stored(t, gw, text); got != tc.stored {
				t.Errorf("stored %v, want %v", got, tc.stored)
			}
		})
	}
}

// TestRoundTripRefusesState: a requestState altered, or sent with other
// arguments, is refused (-32602) and decides nothing; a retry without an
// answer is asked again; the right one still works after.
func TestRoundTripRefusesState(t *testing.T) {
	text := "The zqforgedword door is red."
	s, gw := startAsking(t, text)
	state := asked(t, handle(t, s, NewSession(contract.TransportMCPHTTP), runCall(1, "Note the door.", "")), text)
	approve := `"inputResponses":{"approval":{"action":"accept","content":{"approve":true}}}`
	altered := state[:len(state)-2] + "AA"
	if altered == state {
		altered = state[:len(state)-2] + "BB"
	}
	for _, msg := range []string{
		runCall(2, "Note the door.", approve+`,"requestState":"`+altered+`"`),
		runCall(3, "Note another door.", approve+`,"requestState":"`+state+`"`),
		runCall(4, "Note the door.", approve+`,"requestState":"x.y"`),
	} {
		resp := handle(t, s, NewSession(contract.TransportMCPHTTP), msg)
		e, _ := resp["error"].(map[string]any)
		if e == nil || e["code"] != float64(-32602) || !strings.Contains(fmt.Sprint(e["message"]), "requestState refused") {
			t.Fatalf("%s → %v", msg, resp)
		}
	}
	// No answer: asked again, about the same write.
	again := asked(t, handle(t, s, NewSession(contract.TransportMCPHTTP), runCall(5, "Note the door.", `"requestState":"`+state+`"`)), text)
	res := completed(t, handle(t, s, NewSession(contract.TransportMCPHTTP), runCall(6, "Note the door.", approve+`,"requestState":"`+again+`"`)))
	if !stored(t, gw, text) {
		t.Fatalf("not stored after approval: %v", res)
	}
}

// TestRoundTripNeedsElicitation: a 2026-07-28 client that did not declare
// elicitation is never answered input_required: its call waits, as any
// caller's, for a decision made elsewhere (here over JSON-RPC's path).
func TestRoundTripNeedsElicitation(t *testing.T) {
	text := "The zqnocapword shed is blue."
	s, gw := startAsking(t, text)
	msg := strings.Replace(runCall(1, "Note the shed.", ""), `"elicitation":{}`, ``, 1)
	got := make(chan map[string]any, 1)
	go func() { got <- handle(t, s, NewSession(contract.TransportMCPHTTP), msg) }()
	cc := contract.CallContext{Source: "mcp:console", Transport: contract.TransportMCPStdio}
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := gw.CallRPC(context.Background(), contract.ApprovalList.RPC, nil, cc)
		raw, _ := json.Marshal(res)
		var list struct {
			Pending []struct {
				ID string `json:"id"`
			} `json:"pending"`
		}
		if err == nil && json.Unmarshal(raw, &list) == nil && len(list.Pending) == 1 {
			if _, err := gw.CallRPC(context.Background(), contract.ApprovalDecide.RPC, json.RawMessage(`{"id":"`+list.Pending[0].ID+`","approve":true}`), cc); err != nil {
				t.Fatal(err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("nothing waited for approval")
		}
		time.Sleep(50 * time.Millisecond)
	}
	completed(t, <-got)
	if !stored(t, gw, text) {
		t.Fatal("not stored")
	}
}

package main

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openhuman-go/openhuman-go/pkg/llm"
	"github.com/openhuman-go/openhuman-go/pkg/llm/llmtest"
)

// TestOfficialSDKClientRoundTripApproval: the official Go SDK's client on
// 2026-07-28, its requests dealt in turn to two gateways on one bus, runs
// a note taker with approval.mode = ask. The server answers input_required
// with the approval; the SDK asks its elicitation handler and retries with
// the answer, on the other gateway. Approved, the note is stored; declined,
// it is not.
func TestOfficialSDKClientRoundTripApproval(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	model := llmtest.New(t, func(_ int, req llm.Request) llmtest.Reply {
		if llmtest.LastToolResult(req) == "" {
			var prompt string
			for _, m := range req.Messages {
				if m.Role == "user" {
					prompt = m.Content
				}
			}
			return llmtest.Call("memory_learn", `{"text":"`+prompt+`","kind":"fact"}`)
		}
		return llmtest.Text("Done: " + llmtest.LastToolResult(req))
	})
	urls := startReplicasWith(t, "OPENHUMAN_LLM_BASE_URL="+model.URL, "OPENHUMAN_LLM_MODEL=toy", "OPENHUMAN_APPROVAL_MODE=ask")
	rr := &roundRobin{urls: urls[:]}
	var asked atomic.Int64
	var answer atomic.Value
	client := mcp.NewClient(&mcp.Implementation{Name: "SDK Round Trip", Version: "1.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			if !strings.Contains(req.Params.Message, "note_taker wants to call memory.learn") {
				t.Errorf("asked %q", req.Params.Message)
			}
			return answer.Load().(*mcp.ElicitResult), nil
		},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: urls[0], HTTPClient: &http.Client{Transport: rr}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s", v)
	}
	for i, tc := range []struct {
		text   string
		answer *mcp.ElicitResult
		stored bool
	}{
		{"The zqsdkyesword gate opens at nine.", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, true},
		{"The zqsdknoword gate opens at ten.", &mcp.ElicitResult{Action: "decline"}, false},
	} {
		answer.Store(tc.answer)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "agent.run_subagent", Arguments: map[string]any{"agent_id": "note_taker", "prompt": tc.text}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || asked.Load() != int64(i+1) {
			t.Fatalf("%s: asked %d times, result %+v", tc.text, asked.Load(), res.Content)
		}
		found, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory.fetch", Arguments: map[string]any{"query": strings.Fields(tc.text)[1]}})
		if err != nil {
			t.Fatal(err)
		}
		text := found.Content[0].(*mcp.TextContent).Text
		if got := strings.Contains(text, tc.text); got != tc.stored {
			t.Errorf("%s: stored %v, want %v (%s)", tc.text, got, tc.stored, text)
		}
	}
}

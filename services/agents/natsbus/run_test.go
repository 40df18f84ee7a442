package natsbus_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/llm"
	"github.com/openhuman-go/openhuman-go/pkg/llm/llmtest"
)

func TestLibrarianAnswersFromMemoryWithItsOwnToolsOnly(t *testing.T) {
	r := newRig(t, rigOptions{}, func(n int, req llm.Request) llm.Message {
		switch n {
		case 0:
			return call("memory_learn", `{"text":"not allowed"}`) // not a librarian tool
		case 1:
			return call("memory_recall", `{"question":"How does Maya take her coffee?"}`)
		}
		return text("Maya drinks her coffee black [1] (item-1).")
	})
	res := mustRun(t, r, "librarian", "How does Maya take her coffee?")
	if res.Response != "Maya drinks her coffee black [1] (item-1)." || res.Steps != 3 || res.Model != "test-model" || res.AgentID != "librarian" {
		t.Fatalf("result %+v", res)
	}
	reqs := r.model.Requests()
	if got := functions(reqs[0]); got != "memory_recall,memory_fetch,memory_list" {
		t.Errorf("librarian was offered %s", got)
	}
	if got := llmtest.LastToolResult(reqs[1]); !strings.Contains(got, "there is no tool \"memory_learn\" for you; you can call: memory_fetch, memory_list, memory_recall") {
		t.Errorf("out-of-scope call answered %q", got)
	}
	if got := llmtest.LastToolResult(reqs[2]); !strings.Contains(got, "Maya drinks her coffee black.") {
		t.Errorf("recall result not fed back: %q", got)
	}
	if !strings.Contains(reqs[0].Messages[0].Content, "# Librarian") || !strings.Contains(reqs[0].Messages[0].Content, "# Identity") ||
		!strings.Contains(reqs[0].Messages[0].Content, "### `memory.recall`") || reqs[0].Messages[1].Content != "How does Maya take her coffee?" {
		t.Errorf("prompt: %.300q", reqs[0].Messages[0].Content)
	}
	calls, learned := r.memory.snapshot()
	if strings.Join(calls, ",") != "memory.recall" || len(learned) != 0 {
		t.Errorf("memory saw %v, learned %v", calls, learned)
	}
	if len(res.ToolCalls) != 2 || res.ToolCalls[0].OK || res.ToolCalls[0].Tool != "memory_learn" || !res.ToolCalls[1].OK || res.ToolCalls[1].Tool != "memory.recall" {
		t.Errorf("tool calls %+v", res.ToolCalls)
	}
	r.memory.mu.Lock()
	defer r.memory.mu.Unlock()
	if r.memory.sources[0] != "mcp:test/agent:librarian" || r.memory.depths[0] != 1 {
		t.Errorf("the sub-agent's call carried source %q depth %d", r.memory.sources[0], r.memory.depths[0])
	}
}

// A sub-agent acts for its caller: what it reads and writes is asked with
// the caller's token and scopes and held to the caller's workspaces.
func TestSubagentCallsCarryTheCallersScope(t *testing.T) {
	r := newRig(t, rigOptions{}, func(n int, req llm.Request) llm.Message {
		switch n {
		case 0:
			return call("memory_fetch", `{"query":"roadmap"}`)
		case 1:
			return call("memory_learn", `{"text":"The roadmap is due Friday."}`)
		}
		return text("Done.")
	})
	caller := contract.CallContext{Source: "mcp:test", Transport: contract.TransportMCPHTTP, Token: "ci",
		Scopes: []string{contract.ScopeRead, contract.ScopeAct}, Workspaces: []string{"acme", "docs"}}
	if _, err := r.runAs("task_manager", "Note the roadmap's due date.", caller); err != nil {
		t.Fatal(err)
	}
	r.memory.mu.Lock()
	defer r.memory.mu.Unlock()
	if len(r.memory.ccs) != 2 {
		t.Fatalf("memory saw %v", r.memory.calls)
	}
	for i, cc := range r.memory.ccs {
		if cc.Token != "ci" || strings.Join(cc.Scopes, ",") != "read,act" || strings.Join(cc.Workspaces, ",") != "acme,docs" || cc.Agent != "task_manager" || cc.Depth != 1 {
			t.Errorf("%s carried %+v", r.memory.calls[i], cc)
		}
	}
}

func TestMaxIterations(t *testing.T) {
	t.Run("the last turn offers no tools and must answer", func(t *testing.T) {
		r := newRig(t, rigOptions{}, func(n int, req llm.Request) llm.Message {
			if len(req.Tools) == 0 {
				return text("What I found so far: nothing conclusive.")
			}
			return call("memory_fetch", fmt.Sprintf(`{"query":"loop %d"}`, n))
		})
		res := mustRun(t, r, "critic", "Check the plan.") // max_iterations 6
		if res.Steps != 6 || len(res.ToolCalls) != 5 || len(r.model.Requests()) != 6 {
			t.Fatalf("steps %d, tool calls %d, model requests %d", res.Steps, len(res.ToolCalls), len(r.model.Requests()))
		}
		last := r.model.Requests()[5]
		if !strings.Contains(last.Messages[len(last.Messages)-1].Content, "That was your last tool call") {
			t.Errorf("the last turn was not told to answer")
		}
	})
	t.Run("a model that never stops is stopped", func(t *testing.T) {
		r := newRig(t, rigOptions{}, func(n int, req llm.Request) llm.Message {
			return call("memory_fetch", `{"query":"again"}`)
		})
		_, err := r.run("critic", "Check the plan.", 0)
		if contract.ErrorCode(err) != contract.CodeEngine || !strings.Contains(err.Error(), "critic did not finish within its 6 steps") {
			t.Fatalf("err %v", err)
		}
		if n := len(r.model.Requests()); n != 6 {
			t.Fatalf("%d model requests, want 6", n)
		}
	})
}

func TestDeadline(t *testing.T) {
	r := newRigReplies(t, rigOptions{timeout: 500 * time.Millisecond}, func(n int, req llm.Request) llmtest.Reply {
		if n == 0 {
			return llmtest.Call("memory_fetch", `{"query":"q"}`)
		}
		return llmtest.Reply{Delay: 3 * time.Second, Message: text("too late")}
	})
	start := time.Now()
	_, err := r.run("researcher", "Research this.", 0)
	if contract.ErrorCode(err) != contract.CodeUnavailable || !strings.Contains(err.Error(), "researcher ran out of time after 1 steps") {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the run took %s past its 500ms deadline", d)
	}
}

func TestDelegationDepth(t *testing.T) {
	r := newRig(t, rigOptions{}, func(n int, req llm.Request) llm.Message {
		switch llmtest.Agent(req) {
		case "orchestrator":
			if llmtest.LastToolResult(req) == "" {
				return call("agent_run_subagent", `{"agent_id":"librarian","prompt":"How does Maya take her coffee?"}`)
			}
			return text("The librarian says: " + llmtest.LastToolResult(req))
		case "librarian":
			if llmtest.LastToolResult(req) == "" {
				return call("memory_recall", `{"question":"coffee"}`)
			}
			return text("Black [1].")
		}
		return text("who am I?")
	})
	res := mustRun(t, r, "orchestrator", "How does Maya take her coffee?")
	if !strings.Contains(res.Response, `"response":"Black [1]."`) || res.ToolCalls[0].Tool != "agent.run_subagent" || !res.ToolCalls[0].OK {
		t.Fatalf("delegation: %+v", res)
	}
	r.memory.mu.Lock()
	depth, source := r.memory.depths[0], r.memory.sources[0]
	r.memory.mu.Unlock()
	if depth != 2 || source != "mcp:test/agent:orchestrator/agent:librarian" {
		t.Fatalf("the librarian's recall came at depth %d from %q", depth, source)
	}

	// At the depth limit, running one more sub-agent is refused, and the
	// refusal is what the model is told.
	if _, err := r.run("librarian", "x", contract.MaxDelegationDepth+1); contract.ErrorCode(err) != contract.CodeDenied || !strings.Contains(err.Error(), "at most 2 levels deep") {
		t.Fatalf("too deep: %v", err)
	}
	deep, err := r.run("orchestrator", "delegate", contract.MaxDelegationDepth)
	if err != nil || deep.ToolCalls[0].OK || !strings.Contains(deep.ToolCalls[0].Error, "at most 2 levels deep") {
		t.Fatalf("orchestrator at the limit: %+v %v", deep, err)
	}
}

func TestHugeToolResultsAreCapped(t *testing.T) {
	// Two limits a byte apart: one of them falls inside a two-byte "é".
	for _, limit := range []int{1000, 1001} {
		r := newRig(t, rigOptions{maxToolResult: limit}, func(n int, req llm.Request) llm.Message {
			if n == 0 {
				return call("memory_fetch", `{"query":"huge"}`)
			}
			return text("ok")
		})
		mustRun(t, r, "librarian", "q")
		got := llmtest.LastToolResult(r.model.Requests()[1])
		body, note, _ := strings.Cut(got, "\n[truncated: ")
		if len(body) > limit || len(body) < limit-1 || !strings.Contains(note, fmt.Sprintf("over the %d-byte limit", limit)) {
			t.Fatalf("limit %d: fed back %d bytes, note %q", limit, len(body), note)
		}
		if !utf8.ValidString(body) {
			t.Fatalf("limit %d: the cut split a character", limit)
		}
	}
}

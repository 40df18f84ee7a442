package natsbus_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
	"github.com/openhuman-go/openhuman-go/pkg/audit/sqlite"
	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/llm"
	"github.com/openhuman-go/openhuman-go/pkg/llm/llmtest"
	"github.com/openhuman-go/openhuman-go/services/agents"
	"github.com/openhuman-go/openhuman-go/services/agents/natsbus"
)

// standInMemory serves the memory tools on the real bus, recording what it
// is asked: sub-agents' calls cross NATS exactly as they do in production.
type standInMemory struct {
	mu      sync.Mutex
	calls   []string
	learned []string
	sources []string
	depths  []int
}

func (m *standInMemory) record(tool string, cc contract.CallContext) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, tool)
	m.sources = append(m.sources, cc.Source)
	m.depths = append(m.depths, cc.Depth)
}

func (m *standInMemory) snapshot() (calls, learned []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string{}, m.calls...), append([]string{}, m.learned...)
}

func (m *standInMemory) serve(t *testing.T, ns *embedded.Server) {
	t.Helper()
	nc, err := ns.Connect("memory", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	type args map[string]any
	svc, err := bus.Serve(nc, bus.ServiceConfig{Name: contract.ServiceMemory, Version: "0.0.0", Endpoints: []bus.Endpoint{
		bus.Handle(contract.MemoryRecall.Endpoint(), func(_ context.Context, _ args, cc contract.CallContext) (any, error) {
			m.record("memory.recall", cc)
			return map[string]any{"answer": "Maya drinks her coffee black [1].", "model": "extractive",
				"citations": []any{map[string]any{"id": "item-1", "kind": "learning", "snippet": "Maya drinks her coffee black.", "meta": map[string]any{}, "score": 1}}}, nil
		}),
		bus.Handle(contract.MemoryFetch.Endpoint(), func(_ context.Context, a args, cc contract.CallContext) (any, error) {
			m.record("memory.fetch", cc)
			if a["query"] == "huge" {
				return map[string]any{"hits": []any{map[string]any{"id": "big", "text": strings.Repeat("é", 50000)}}}, nil
			}
			return map[string]any{"hits": []any{}}, nil
		}),
		bus.Handle(contract.MemoryList.Endpoint(), func(_ context.Context, _ args, cc contract.CallContext) (any, error) {
			m.record("memory.list", cc)
			return map[string]any{"items": []any{}}, nil
		}),
		bus.Handle(contract.MemoryLearn.Endpoint(), func(_ context.Context, a args, cc contract.CallContext) (any, error) {
			m.record("memory.learn", cc)
			m.mu.Lock()
			m.learned = append(m.learned, a["text"].(string))
			n := len(m.learned)
			m.mu.Unlock()
			return map[string]any{"id": fmt.Sprintf("learned-%d", n), "replayed": false}, nil
		}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop() })
}

// rig is the agents service on a real embedded NATS server with the
// stand-in memory, a scripted language model, and an audit file.
type rig struct {
	ns     *embedded.Server
	client *bus.Client
	memory *standInMemory
	model  *llmtest.Server
	audit  audit.Log
	gate   *agents.Gate
}

type rigOptions struct {
	noModel       bool
	timeout       time.Duration
	modelTimeout  time.Duration
	maxToolResult int
	gate          *agents.Gate
}

func newRig(t *testing.T, o rigOptions, script func(n int, req llm.Request) llm.Message) *rig {
	t.Helper()
	return newRigReplies(t, o, func(n int, req llm.Request) llmtest.Reply {
		return llmtest.Reply{Message: script(n, req)}
	})
}

func newRigReplies(t *testing.T, o rigOptions, script func(n int, req llm.Request) llmtest.Reply) *rig {
	t.Helper()
	ns, err := embedded.Start(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	r := &rig{ns: ns, memory: &standInMemory{}, model: llmtest.New(t, script), gate: o.gate}
	r.memory.serve(t, ns)
	log := slog.New(slog.DiscardHandler)
	auditLog, err := sqlite.Open(filepath.Join(t.TempDir(), "audit.db"), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { auditLog.Close() })
	r.audit = auditLog
	if r.gate == nil {
		r.gate = agents.NewGate(agents.ApprovalAuto, nil, 0)
	}
	r.startAgents(t, o)
	nc, err := ns.Connect("client", log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	r.client = bus.NewClient(nc)
	return r
}

// startAgents starts one replica of the agents service.
func (r *rig) startAgents(t *testing.T, o rigOptions) {
	t.Helper()
	r.startReplica(t, o, r.gate)
}

// startReplica starts a replica of the agents service with its own gate.
func (r *rig) startReplica(t *testing.T, o rigOptions, gate *agents.Gate) {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	nc, err := r.ns.Connect("agents", log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	opts := agents.RunnerOptions{ModelName: "test-model", Timeout: o.timeout, MaxToolResult: o.maxToolResult, Approval: gate, Audit: audit.NewRecorder(r.audit, log)}
	if !o.noModel {
		mt := o.modelTimeout
		if mt == 0 {
			mt = 10 * time.Second
		}
		opts.Model = llm.New(r.model.URL, "test-model", "", mt)
	}
	runner := agents.NewRunner(natsbus.Tools(bus.NewClient(nc)), opts)
	svc, err := natsbus.Serve(nc, runner, gate, "0.0.0", log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop() })
}

var runTool, _ = contract.ToolByName("agent.run_subagent")

func (r *rig) run(agentID, prompt string, depth int) (*agents.RunResult, error) {
	params, _ := json.Marshal(map[string]any{"agent_id": agentID, "prompt": prompt})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	raw, err := r.client.CallTool(ctx, runTool, params, contract.CallContext{Source: "mcp:test", Transport: "mcp_stdio", Depth: depth})
	if err != nil {
		return nil, err
	}
	var res agents.RunResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

func mustRun(t *testing.T, r *rig, agentID, prompt string) *agents.RunResult {
	t.Helper()
	res, err := r.run(agentID, prompt, 0)
	if err != nil {
		t.Fatalf("%s: %v", agentID, err)
	}
	return res
}

func call(function, args string) llm.Message { return llmtest.Call(function, args).Message }
func text(s string) llm.Message              { return llmtest.Text(s).Message }

func functions(req llm.Request) string {
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Function.Name)
	}
	return strings.Join(names, ",")
}

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

func TestMalformedModelOutputIsReportedNotCrashedOn(t *testing.T) {
	r := newRig(t, rigOptions{}, func(n int, req llm.Request) llm.Message {
		switch n {
		case 0:
			return call("memory_recall", `{"question": "unterminated`)
		case 1:
			return call("memory_recall", `{"query":"wrong field"}`)
		case 2:
			return call("memory_recall", ``) // no arguments at all
		}
		return text("Done.")
	})
	res := mustRun(t, r, "librarian", "q")
	reqs := r.model.Requests()
	for i, want := range []string{
		"the arguments of memory.recall are not valid JSON",
		"unexpected argument `query`",
		"missing required argument `question`",
	} {
		if got := llmtest.LastToolResult(reqs[i+1]); !strings.Contains(got, want) {
			t.Errorf("turn %d: told %q, want %q", i+1, got, want)
		}
	}
	if len(res.ToolCalls) != 3 || res.ToolCalls[0].OK || res.ToolCalls[1].OK || res.ToolCalls[2].OK {
		t.Errorf("tool calls %+v", res.ToolCalls)
	}
	if calls, _ := r.memory.snapshot(); len(calls) != 0 {
		t.Errorf("bad arguments reached memory: %v", calls)
	}

	for name, reply := range map[string]llmtest.Reply{
		"empty answer":  llmtest.Text("   "),
		"no choices":    {Body: `{"id":"x","object":"chat.completion","choices":[]}`},
		"not JSON":      {Body: `<html>502 Bad Gateway</html>`},
		"unknown model": llmtest.Error(404, "The model `nope` does not exist"),
		"bad key":       llmtest.Error(401, "Incorrect API key provided"),
	} {
		t.Run(name, func(t *testing.T) {
			r := newRigReplies(t, rigOptions{}, func(int, llm.Request) llmtest.Reply { return reply })
			_, err := r.run("librarian", "q", 0)
			if e := contract.AsError(err); e == nil || e.Code == contract.CodeInternal || !strings.Contains(e.Message, "librarian") {
				t.Fatalf("err %v", err)
			}
		})
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

func TestRetriesA429ThenSucceeds(t *testing.T) {
	r := newRigReplies(t, rigOptions{}, func(n int, req llm.Request) llmtest.Reply {
		if n == 0 {
			rep := llmtest.Error(429, "Rate limit reached for requests")
			rep.Header = http.Header{"Retry-After": {"0"}}
			return rep
		}
		return llmtest.Text("fine")
	})
	if res := mustRun(t, r, "summarizer", "Summarize: a b c."); res.Response != "fine" || len(r.model.Requests()) != 2 {
		t.Fatalf("result %+v after %d requests", res, len(r.model.Requests()))
	}
}

func TestModelTimeoutIsReported(t *testing.T) {
	r := newRigReplies(t, rigOptions{modelTimeout: 200 * time.Millisecond}, func(int, llm.Request) llmtest.Reply {
		return llmtest.Reply{Delay: time.Second, Message: text("late")}
	})
	_, err := r.run("translator", "Translate: hallo", 0)
	if contract.ErrorCode(err) != contract.CodeUnavailable || !strings.Contains(err.Error(), "no answer in time") {
		t.Fatalf("err %v", err)
	}
}

func TestPromptGuidedToolCalls(t *testing.T) {
	r := newRig(t, rigOptions{}, func(n int, req llm.Request) llm.Message {
		if n == 0 {
			return text("```json\n{\"tool\": \"memory.recall\", \"arguments\": {\"question\": \"coffee\"}}\n```")
		}
		return text("Black [1].")
	})
	res := mustRun(t, r, "librarian", "q")
	if res.Response != "Black [1]." || len(res.ToolCalls) != 1 || !res.ToolCalls[0].OK {
		t.Fatalf("result %+v", res)
	}
	if got := llmtest.LastToolResult(r.model.Requests()[1]); !strings.HasPrefix(got, "Result of memory_recall:") {
		t.Fatalf("fed back %q", got)
	}
}

func TestNoModelAndUnknownAgent(t *testing.T) {
	r := newRig(t, rigOptions{noModel: true}, nil)
	_, err := r.run("librarian", "q", 0)
	if contract.ErrorCode(err) != contract.CodeNoModel || !strings.Contains(err.Error(), "set [llm] model") || !strings.Contains(err.Error(), "OPENHUMAN_LLM_MODEL") {
		t.Fatalf("no model: %v", err)
	}
	_, err = r.run("butler", "q", 0)
	if contract.ErrorCode(err) != contract.CodeNotFound || !strings.Contains(err.Error(), "librarian") {
		t.Fatalf("unknown agent: %v", err)
	}
}

package natsbus_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
	"github.com/openhuman-go/openhuman-go/pkg/audit/sqlite"
	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
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
	ccs     []contract.CallContext
}

func (m *standInMemory) record(tool string, cc contract.CallContext) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, tool)
	m.sources = append(m.sources, cc.Source)
	m.depths = append(m.depths, cc.Depth)
	m.ccs = append(m.ccs, cc)
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
	svc, err := bus.Serve(nc, bus.ServiceConfig{Checks: bustest.Keys().Checks(), Name: contract.ServiceMemory, Version: "0.0.0", Endpoints: []bus.Endpoint{
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
	r.client = bus.NewClient(nc, bustest.Keys().GatewaySigner())
	return r
}

// startAgents starts one replica of the agents service.
func (r *rig) startAgents(t *testing.T, o rigOptions) {
	t.Helper()
	r.startReplica(t, o, r.gate)
}

// testAuditKey keys the resulting ids the rig's audit keeps.
var testAuditKey = []byte("0123456789abcdef0123456789abcdef")

// startReplica starts a replica of the agents service with its own gate.
func (r *rig) startReplica(t *testing.T, o rigOptions, gate *agents.Gate) {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	nc, err := r.ns.Connect("agents", log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	opts := agents.RunnerOptions{ModelName: "test-model", Timeout: o.timeout, MaxToolResult: o.maxToolResult, Approval: gate, Audit: audit.NewRecorder(r.audit, log, testAuditKey)}
	if !o.noModel {
		mt := o.modelTimeout
		if mt == 0 {
			mt = 10 * time.Second
		}
		opts.Model = llm.New(r.model.URL, "test-model", "", mt)
	}
	runner := agents.NewRunner(natsbus.Tools(bus.NewClient(nc, bustest.Keys().AgentsSigner())), opts)
	svc, err := natsbus.Serve(nc, runner, gate, "0.0.0", bustest.Keys().Checks(), log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop() })
}

var runTool, _ = contract.ToolByName("agent.run_subagent")

func (r *rig) run(agentID, prompt string, depth int) (*agents.RunResult, error) {
	return r.runAs(agentID, prompt, contract.CallContext{Source: "mcp:test", Transport: "mcp_stdio", Depth: depth})
}

// runAs runs a sub-agent for the caller cc.
func (r *rig) runAs(agentID, prompt string, cc contract.CallContext) (*agents.RunResult, error) {
	params, _ := json.Marshal(map[string]any{"agent_id": agentID, "prompt": prompt})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	raw, err := r.client.CallTool(ctx, runTool, params, cc)
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

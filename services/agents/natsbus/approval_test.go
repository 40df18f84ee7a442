package natsbus_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/llm"
	"github.com/openhuman-go/openhuman-go/pkg/llm/llmtest"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn/redistest"
	"github.com/openhuman-go/openhuman-go/services/agents"
	"github.com/openhuman-go/openhuman-go/services/agents/redis"
)

// noteTaker stores one learning, then reports what its call returned.
func noteTaker(_ int, req llm.Request) llm.Message {
	if llmtest.LastToolResult(req) == "" {
		return call("memory_learn", `{"text":"Standup moved to 9:30 on Mondays.","kind":"fact"}`)
	}
	return text("Stored: " + llmtest.LastToolResult(req))
}

func (r *rig) auditRows(t *testing.T) []audit.Row {
	t.Helper()
	rows, err := r.audit.Recent(context.Background(), 100, false)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

var (
	listTool, _   = contract.ToolByName("approval.list")
	decideTool, _ = contract.ToolByName("approval.decide")
)

func (r *rig) pending(t *testing.T) (string, []agents.Pending) {
	return r.pendingAs(t, contract.CallContext{Source: "rpc"})
}

// pendingAs lists the calls waiting as the caller cc sees them.
func (r *rig) pendingAs(t *testing.T, cc contract.CallContext) (string, []agents.Pending) {
	t.Helper()
	raw, err := r.client.CallTool(context.Background(), listTool, json.RawMessage(`{}`), cc)
	if err != nil {
		t.Fatal(err)
	}
	var out contract.ApprovalQueue
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out.Mode, out.Pending
}

func (r *rig) decide(id string, approve bool, reason string) error {
	return r.decideAs(id, approve, reason, contract.CallContext{Source: "rpc"})
}

func (r *rig) decideAs(id string, approve bool, reason string, cc contract.CallContext) error {
	args := map[string]any{"id": id, "approve": approve}
	if reason != "" {
		args["reason"] = reason
	}
	params, _ := json.Marshal(args)
	_, err := r.client.CallTool(context.Background(), decideTool, params, cc)
	return err
}

// waitPending polls approval.list until one call waits.
func (r *rig) waitPending(t *testing.T) agents.Pending {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if mode, ps := r.pending(t); len(ps) == 1 {
			if mode != agents.ApprovalAsk {
				t.Fatalf("mode %s", mode)
			}
			return ps[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no call came to wait for approval")
	return agents.Pending{}
}

func TestApprovalAuto(t *testing.T) {
	r := newRig(t, rigOptions{}, noteTaker)
	res := mustRun(t, r, "note_taker", "Standup moved to 9:30 on Mondays.")
	if _, learned := r.memory.snapshot(); len(learned) != 1 || !strings.Contains(res.Response, "learned-1") {
		t.Fatalf("learned %v, response %q", learned, res.Response)
	}
	rows := r.auditRows(t)
	if len(rows) != 1 || !rows[0].Success || rows[0].ToolName != "memory.learn" || rows[0].ResultingID != audit.Pseudonym(testAuditKey, "learned-1") ||
		rows[0].Client != "mcp:test/agent:note_taker" || rows[0].ArgsSummary["text_length"] != float64(33) || rows[0].ArgsSummary["kind"] != "fact" {
		t.Fatalf("audit %+v", rows)
	}
}

func TestApprovalDeny(t *testing.T) {
	r := newRig(t, rigOptions{gate: agents.NewGate(agents.ApprovalDeny, nil, 0)}, noteTaker)
	res := mustRun(t, r, "note_taker", "x")
	if _, learned := r.memory.snapshot(); len(learned) != 0 {
		t.Fatalf("learned %v in deny mode", learned)
	}
	if res.ToolCalls[0].OK || !strings.Contains(res.ToolCalls[0].Error, "approval.mode is deny") {
		t.Fatalf("tool calls %+v", res.ToolCalls)
	}
	rows := r.auditRows(t)
	if len(rows) != 1 || rows[0].Success || !strings.Contains(rows[0].ErrorMessage, "approval.mode is deny") || rows[0].ResultingID != "" {
		t.Fatalf("audit %+v", rows)
	}
}

func askFlow(t *testing.T, r *rig) {
	t.Helper()
	// Approved: the call runs.
	done := make(chan *agents.RunResult)
	go func() { res, _ := r.run("note_taker", "x", 0); done <- res }()
	p := r.waitPending(t)
	if p.AgentID != "note_taker" || p.Tool != "memory.learn" || p.Arguments["text"] != "Standup moved to 9:30 on Mondays." || p.Client != "mcp:test/agent:note_taker" || p.ExpiresMS <= p.RequestedMS {
		t.Fatalf("pending %+v", p)
	}
	if _, learned := r.memory.snapshot(); len(learned) != 0 {
		t.Fatal("learned before approval")
	}
	if err := r.decide(p.ID, true, ""); err != nil {
		t.Fatal(err)
	}
	if res := <-done; res == nil || !res.ToolCalls[0].OK {
		t.Fatalf("approved run: %+v", res)
	}
	if _, learned := r.memory.snapshot(); len(learned) != 1 {
		t.Fatalf("learned %v after approval", learned)
	}
	// A call is decided once.
	if err := r.decide(p.ID, false, ""); contract.ErrorCode(err) != contract.CodeNotFound || !strings.Contains(err.Error(), "openhuman.approval_list names those waiting") {
		t.Fatalf("second decision: %v", err)
	}

	// Denied, with a reason the sub-agent is told.
	go func() { res, _ := r.run("note_taker", "x", 0); done <- res }()
	p = r.waitPending(t)
	if err := r.decide(p.ID, false, "not during the freeze"); err != nil {
		t.Fatal(err)
	}
	if res := <-done; res == nil || res.ToolCalls[0].OK || !strings.Contains(res.ToolCalls[0].Error, "denied by the approver: not during the freeze") {
		t.Fatalf("denied run: %+v", res)
	}
	if _, learned := r.memory.snapshot(); len(learned) != 1 {
		t.Fatalf("learned %v after a denial", learned)
	}
	rows := r.auditRows(t)
	if len(rows) != 2 || rows[0].Success || !strings.Contains(rows[0].ErrorMessage, "not during the freeze") || !rows[1].Success {
		t.Fatalf("audit %+v", rows)
	}
	if err := r.decide("0123456789abcdef", true, ""); contract.ErrorCode(err) != contract.CodeNotFound {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestApprovalAskInProcess(t *testing.T) {
	r := newRig(t, rigOptions{gate: agents.NewGate(agents.ApprovalAsk, agents.NewMemoryApprovals(), time.Minute)}, noteTaker)
	askFlow(t, r)
}

func TestApprovalAskTimesOut(t *testing.T) {
	r := newRig(t, rigOptions{gate: agents.NewGate(agents.ApprovalAsk, agents.NewMemoryApprovals(), 300*time.Millisecond)}, noteTaker)
	res := mustRun(t, r, "note_taker", "x")
	if res.ToolCalls[0].OK || !strings.Contains(res.ToolCalls[0].Error, "nobody approved it within 300ms") {
		t.Fatalf("tool calls %+v", res.ToolCalls)
	}
	if _, ps := r.pending(t); len(ps) != 0 {
		t.Fatalf("a timed-out call still waits: %+v", ps)
	}
	if rows := r.auditRows(t); len(rows) != 1 || rows[0].Success || !strings.Contains(rows[0].ErrorMessage, "nobody approved it") {
		t.Fatalf("audit %+v", rows)
	}
}

func redisGate(t *testing.T, url, prefix string, timeout time.Duration) *agents.Gate {
	t.Helper()
	c, err := redisconn.New(url, prefix, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return agents.NewGate(agents.ApprovalAsk, redis.NewApprovals(c), timeout)
}

// TestApprovalAskAcrossReplicas parks calls in Redis with two replicas of
// the agents service: whichever replica the decision reaches, the waiting
// call gets it.
func TestApprovalAskAcrossReplicas(t *testing.T) {
	prefix := redistest.Prefix(t)
	r := newRig(t, rigOptions{gate: redisGate(t, redistest.URL(), prefix, time.Minute)}, noteTaker)
	r.startReplica(t, rigOptions{}, redisGate(t, redistest.URL(), prefix, time.Minute))
	askFlow(t, r)

	// A third process that runs no agent sees the waiting call in Redis
	// and decides it.
	elsewhere := redisGate(t, redistest.URL(), prefix, time.Minute)
	done := make(chan *agents.RunResult)
	go func() { res, _ := r.run("note_taker", "x", 0); done <- res }()
	id := r.waitPending(t).ID
	ps, err := elsewhere.List(context.Background(), contract.CallContext{})
	if err != nil || len(ps) != 1 || ps[0].ID != id {
		t.Fatalf("seen elsewhere: %+v %v", ps, err)
	}
	if err := elsewhere.Decide(context.Background(), id, agents.Decision{Approve: true}, contract.CallContext{}); err != nil {
		t.Fatal(err)
	}
	if res := <-done; res == nil || !res.ToolCalls[0].OK {
		t.Fatalf("run decided elsewhere: %+v", res)
	}
	// Only the list of decided calls stays (it expires on its own), and
	// it says who decided, from either replica.
	if keys := redistest.Keys(t, prefix); len(keys) != 1 || keys[0] != prefix+"approvals:decided" {
		t.Fatalf("left in Redis: %v", keys)
	}
	ds, err := elsewhere.Decided(context.Background(), contract.CallContext{})
	if err != nil || len(ds) == 0 || ds[0].ID != id || ds[0].Outcome != agents.OutcomeApproved {
		t.Fatalf("decided, seen elsewhere: %+v %v", ds, err)
	}
}

func TestApprovalWithRedisDownIsRefused(t *testing.T) {
	r := newRig(t, rigOptions{gate: redisGate(t, "redis://127.0.0.1:1/0", "p:", time.Minute)}, noteTaker)
	res := mustRun(t, r, "note_taker", "x")
	if res.ToolCalls[0].OK || !strings.Contains(res.ToolCalls[0].Error, "approvals cannot be kept right now") {
		t.Fatalf("tool calls %+v", res.ToolCalls)
	}
	if _, learned := r.memory.snapshot(); len(learned) != 0 {
		t.Fatal("a write went through without its approval")
	}
}

// TestAuditNamesTheToken: a sub-agent's write is audited with the bearer
// token its caller came with, as the caller's own writes are.
func TestAuditNamesTheToken(t *testing.T) {
	r := newRig(t, rigOptions{}, noteTaker)
	if _, err := r.runAs("note_taker", "Standup moved to 9:30 on Mondays.", contract.CallContext{Source: "mcp:test", Transport: "mcp_http", Token: "laptop"}); err != nil {
		t.Fatal(err)
	}
	if rows := r.auditRows(t); len(rows) != 1 || rows[0].Token != "laptop" || rows[0].ToolName != "memory.learn" {
		t.Fatalf("audit %+v", rows)
	}
}

// TestApprovalsKeepToTheirWorkspaces: a caller limited to workspaces sees
// and decides only the calls of callers limited to workspaces it has; a
// call of another workspace, or of a caller with no limit, is as if it did
// not wait, and stays undecided.
func TestApprovalsKeepToTheirWorkspaces(t *testing.T) {
	r := newRig(t, rigOptions{gate: agents.NewGate(agents.ApprovalAsk, agents.NewMemoryApprovals(), time.Minute)}, noteTaker)
	inA := contract.CallContext{Source: "http:ra", Token: "ra", Workspaces: []string{"a"}}
	inB := contract.CallContext{Source: "http:rb", Token: "rb", Workspaces: []string{"b"}}
	inAB := contract.CallContext{Source: "http:rab", Token: "rab", Workspaces: []string{"a", "b"}}
	done := make(chan *agents.RunResult)
	go func() {
		res, _ := r.runAs("note_taker", "Standup moved to 9:30 on Mondays.", contract.CallContext{Source: "mcp:b", Transport: "mcp_http", Token: "rb", Workspaces: []string{"b"}})
		done <- res
	}()
	p := r.waitPending(t)
	if p.Token != "rb" || len(p.Workspaces) != 1 || p.Workspaces[0] != "b" {
		t.Fatalf("pending %+v", p)
	}
	if _, ps := r.pendingAs(t, inA); len(ps) != 0 {
		t.Fatalf("a caller of workspace a sees b's call: %+v", ps)
	}
	for _, cc := range []contract.CallContext{inB, inAB} {
		if _, ps := r.pendingAs(t, cc); len(ps) != 1 || ps[0].ID != p.ID {
			t.Fatalf("%s does not see b's call: %+v", cc.Token, ps)
		}
	}
	err := r.decideAs(p.ID, false, "a says no", inA)
	if contract.ErrorCode(err) != contract.CodeNotFound || err.Error() != agents.NotPending(p.ID).Error() {
		t.Fatalf("a deciding b's call: %v; want the answer for a call that does not wait", err)
	}
	if _, ps := r.pending(t); len(ps) != 1 {
		t.Fatalf("a's refused decision ended the call: %+v", ps)
	}
	if err := r.decideAs(p.ID, true, "", inB); err != nil {
		t.Fatal(err)
	}
	if res := <-done; res == nil || !res.ToolCalls[0].OK {
		t.Fatalf("run approved by b: %+v", res)
	}

	// A call of a caller with no limit is no scoped caller's to see.
	go func() { res, _ := r.run("note_taker", "x", 0); done <- res }()
	p = r.waitPending(t)
	if _, ps := r.pendingAs(t, inAB); len(ps) != 0 {
		t.Fatalf("a scoped caller sees an unscoped caller's call: %+v", ps)
	}
	if err := r.decideAs(p.ID, true, "", inAB); contract.ErrorCode(err) != contract.CodeNotFound {
		t.Fatalf("a scoped caller deciding an unscoped caller's call: %v", err)
	}
	if err := r.decide(p.ID, false, "operator"); err != nil {
		t.Fatal(err)
	}
	<-done
}

// TestApprovalShowsNoSecret: a call waiting for approval is listed with its
// secrets removed, while the write, once approved, carries what the
// sub-agent gave it (memory scrubs that when it stores).
func TestApprovalShowsNoSecret(t *testing.T) {
	const secret = "hunter2xyz"
	leaky := func(_ int, req llm.Request) llm.Message {
		if llmtest.LastToolResult(req) == "" {
			return call("memory_learn", `{"text":"The staging DB_PASSWORD=`+secret+` for the deploy."}`)
		}
		return text("Stored.")
	}
	r := newRig(t, rigOptions{gate: agents.NewGate(agents.ApprovalAsk, agents.NewMemoryApprovals(), time.Minute)}, leaky)
	done := make(chan *agents.RunResult)
	go func() { res, _ := r.run("note_taker", "remember the staging password", 0); done <- res }()
	p := r.waitPending(t)
	shown, _ := json.Marshal(p.Arguments)
	if strings.Contains(string(shown), secret) || !strings.Contains(string(shown), "DB_PASSWORD=[REDACTED:password]") {
		t.Fatalf("the waiting call is shown as %s", shown)
	}
	if err := r.decide(p.ID, true, ""); err != nil {
		t.Fatal(err)
	}
	<-done
	if _, learned := r.memory.snapshot(); len(learned) != 1 || !strings.Contains(fmt.Sprint(learned), secret) {
		t.Fatalf("the approved write reached memory as %v", learned)
	}
}

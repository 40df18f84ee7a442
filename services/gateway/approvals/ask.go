// Package approvals lets the person behind an MCP call decide the
// approvals its sub-agent waits for from their own client, not only in
// the console: by elicitation while the call runs (CallToolAsking), or,
// in MCP 2026-07-28, which has no server-to-client requests, by a
// question the client answers when it sends the call again
// (CallToolRoundTrip). Either way the answer is decided through
// approval.decide, gated and audited like any decision.
package approvals

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Ask puts a question to the person behind a call, as MCP's
// elicitation/create does: a message and the schema of the answer (a flat
// object). It returns the action (accept, decline or cancel) and, on
// accept, the answer.
type Ask = func(ctx context.Context, message string, schema map[string]any) (action string, content map[string]any, err error)

// askEvery is how often a call that can ask looks for approvals its
// sub-agent waits for.
const askEvery = 250 * time.Millisecond

// approveSchema is the answer a person gives to an approval: yes or no,
// and why.
var approveSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"approve": map[string]any{"type": "boolean", "title": "Approve", "description": "Yes lets the sub-agent's call run; no refuses it."},
		"note":    map[string]any{"type": "string", "title": "Note", "description": "Why, told to the sub-agent when you refuse.", "maxLength": 500},
	},
	"required": []string{"approve"},
}

// dispatcher is the gateway as approvals call it: a tool by name in its
// profile, or any tool (approval.decide, the sub-agent's run), through the
// same gates, metrics and audit.
type dispatcher interface {
	CallTool(ctx context.Context, name string, args json.RawMessage, cc contract.CallContext) (json.RawMessage, error)
	Dispatch(ctx context.Context, tool contract.Tool, args json.RawMessage, cc contract.CallContext) (json.RawMessage, error)
}

// bus is what approvals ask the services directly: the approvals a run
// waits for (not measured as the caller's calls) and a run's outcome.
type bus interface {
	CallTool(ctx context.Context, tool contract.Tool, params json.RawMessage, cc contract.CallContext) (json.RawMessage, error)
	CallEndpoint(ctx context.Context, ep contract.Endpoint, params any, cc contract.CallContext) (json.RawMessage, error)
}

// scopeGate says whether a caller may call a tool of a scope
// (policy.Policy).
type scopeGate interface {
	AllowScope(name, scope string, cc contract.CallContext) error
}

// Options configure an Asker.
type Options struct {
	// Profile is the MCP surface tool names are looked up in.
	Profile string
	// Timeout bounds a tool's call.
	Timeout func(contract.Tool) time.Duration
	// StateKey seals the requestState of questions (roundtrip.go);
	// every gateway replica that may take a retry needs the same one.
	// Nil: a key of this process alone.
	StateKey []byte
}

// Asker puts sub-agents' approvals to the caller.
type Asker struct {
	gw       dispatcher
	bus      bus
	gate     scopeGate
	profile  string
	timeout  func(contract.Tool) time.Duration
	stateKey []byte
}

// New returns an Asker calling tools through gw, asking the services on
// b, and letting only callers gate allows to read the approvals be asked.
func New(gw dispatcher, b bus, gate scopeGate, opts Options) *Asker {
	key := opts.StateKey
	if len(key) == 0 {
		key = newStateKey()
	}
	return &Asker{gw: gw, bus: b, gate: gate, profile: opts.Profile, timeout: opts.Timeout, stateKey: key}
}

// CallToolAsking is CallTool for a caller that can be asked, such as an
// MCP session that declared elicitation. While a sub-agent it runs waits
// for approval of a write, the caller is asked too: whichever answers
// first, the caller or someone in the console, decides, and the other's
// question is withdrawn. Any other tool is CallTool.
func (a *Asker) CallToolAsking(ctx context.Context, name string, args json.RawMessage, cc contract.CallContext, ask Ask) (json.RawMessage, error) {
	tool, ok := contract.ToolFor(a.profile, name)
	if !ok || tool.Name != contract.AgentRunSubagent.Name || ask == nil || a.gate.AllowScope(contract.ApprovalList.Name, contract.ScopeRead, cc) != nil {
		return a.gw.CallTool(ctx, name, args, cc)
	}
	cc.Call = newCallID()
	actx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); a.askApprovals(actx, cc, ask) }()
	defer func() { stop(); <-done }()
	return a.gw.Dispatch(ctx, tool, args, cc)
}

// waiting is a call waiting for approval, as approval.list shows it.
type waiting = contract.PendingApproval

// askApprovals asks about each approval the run cc.Call waits for, until
// ctx ends; a question whose approval was decided elsewhere is withdrawn.
func (a *Asker) askApprovals(ctx context.Context, cc contract.CallContext, ask Ask) {
	asked := map[string]context.CancelFunc{}
	// Questions are withdrawn, and their answers' decisions made, before
	// the call returns: the transport's stream ends with it.
	var questions sync.WaitGroup
	defer func() {
		for _, cancel := range asked {
			cancel()
		}
		questions.Wait()
	}()
	t := time.NewTicker(askEvery)
	defer t.Stop()
	for {
		// The listing is the gateway's own, not the caller's: it is not
		// measured as a call of approval.list (the scope was checked).
		raw, err := a.bus.CallTool(ctx, contract.ApprovalList, nil, cc)
		var list contract.ApprovalQueue
		if err == nil && json.Unmarshal(raw, &list) == nil {
			still := map[string]bool{}
			for _, p := range list.Pending {
				if p.Call != cc.Call {
					continue
				}
				still[p.ID] = true
				if _, ok := asked[p.ID]; !ok {
					qctx, cancel := context.WithCancel(ctx)
					asked[p.ID] = cancel
					questions.Go(func() { a.askOne(qctx, p, cc, ask) })
				}
			}
			for id, cancel := range asked {
				if !still[id] {
					cancel() // decided elsewhere, or timed out
					delete(asked, id)
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// askOne asks about p and decides it as answered, through approval.decide
// like any decision (scope gate, audit). A question withdrawn or left
// unanswered (cancel) decides nothing: the console still can.
func (a *Asker) askOne(ctx context.Context, p waiting, cc contract.CallContext, ask Ask) {
	action, content, err := ask(ctx, approvalMessage(p), approveSchema)
	if err != nil || ctx.Err() != nil {
		return
	}
	decision := decisionOf(action, content, cc)
	if decision == nil {
		return
	}
	decision["id"] = p.ID
	params, _ := json.Marshal(decision)
	// A decision that lost the race is NOT_FOUND: the other one stands.
	_, _ = a.gw.Dispatch(context.WithoutCancel(ctx), contract.ApprovalDecide, params, cc)
}

// approvalMessage is the question a person is asked about p.
func approvalMessage(p waiting) string {
	args, _ := json.Marshal(p.Arguments)
	return fmt.Sprintf("The sub-agent %s wants to call %s with %s. Approve it?", p.AgentID, p.Tool, clipText(string(args), 2000))
}

func newCallID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

package agents

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/secrets"
)

// Approval modes: what happens to a sub-agent's side-effecting call.
const (
	ApprovalAuto = "auto" // it runs (and is audited)
	ApprovalDeny = "deny" // it is refused (and audited)
	ApprovalAsk  = "ask"  // it waits for a person's decision, or a timeout denies it
)

// Pending is a call waiting for a decision, and Decided a call that
// waited and how it ended: declared in pkg/contract, where approval.list's
// output schema is generated from them.
type (
	Pending = contract.PendingApproval
	Decided = contract.DecidedApproval
)

// Outcomes of a decided call.
const (
	OutcomeApproved = "approved"
	OutcomeDenied   = "denied"
	OutcomeTimedOut = "timed_out"
)

// maxDecided is how many decided calls are kept for listing.
const maxDecided = 50

// scrubbed is a call's arguments as an approver is shown them: every
// string with its secrets removed, as memory would store it, so a secret a
// sub-agent was about to write is neither listed nor parked (in Redis,
// with replicas). The call itself still carries what it was given, and
// memory scrubs that when it stores.
func scrubbed(v any) any {
	switch v := v.(type) {
	case string:
		s, _ := secrets.Scrub(v)
		return s
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = scrubbed(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = scrubbed(e)
		}
		return out
	}
	return v
}

// visibleTo reports whether cc may see and decide p. A caller limited to
// some workspaces sees only the calls that can write nowhere else: those of
// callers limited to workspaces it has too. Another's call, its arguments
// above all, is not its to read, nor to approve or deny.
func visibleTo(p Pending, cc contract.CallContext) bool {
	if !cc.Scoped() {
		return true
	}
	if len(p.Workspaces) == 0 {
		return false
	}
	for _, w := range p.Workspaces {
		if !cc.MaySee(w) {
			return false
		}
	}
	return true
}

// Decision is an approver's answer, and who gave it (provenance and
// bearer token name of the deciding call).
type Decision struct {
	Approve bool   `json:"approve"`
	Reason  string `json:"reason,omitempty"`
	By      string `json:"by,omitempty"`
	Token   string `json:"token,omitempty"`
}

// Approvals holds parked calls until they are decided. Two backends: in
// the process (NewMemoryApprovals) and Redis, so that any replica of the
// agents service can take the decision for a call another one parked.
type Approvals interface {
	Park(ctx context.Context, p Pending) error
	// Wait returns the decision, or false when none came within timeout.
	Wait(ctx context.Context, id string, timeout time.Duration) (Decision, bool, error)
	Remove(ctx context.Context, id string) error
	List(ctx context.Context) ([]Pending, error)
	// Decide answers a parked call; NOT_FOUND when none is waiting.
	Decide(ctx context.Context, id string, d Decision) error
	// Record keeps d among the decided calls (the newest maxDecided), and
	// Decided lists them, newest first.
	Record(ctx context.Context, d Decided) error
	Decided(ctx context.Context) ([]Decided, error)
}

// Gate is the approval gate of sub-agents' side effects.
type Gate struct {
	mode    string
	store   Approvals
	timeout time.Duration
	log     *slog.Logger
}

// NewGate returns a gate in mode; store and timeout matter in ask mode.
func NewGate(mode string, store Approvals, timeout time.Duration) *Gate {
	if store == nil {
		store = NewMemoryApprovals()
	}
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	return &Gate{mode: mode, store: store, timeout: timeout, log: slog.New(slog.DiscardHandler)}
}

// WithLogger makes the gate say in the log when a call waits.
func (g *Gate) WithLogger(l *slog.Logger) *Gate { g.log = l; return g }

// Mode is the gate's mode.
func (g *Gate) Mode() string { return g.mode }

// Check admits p, or refuses it with DENIED saying why.
func (g *Gate) Check(ctx context.Context, p Pending) error {
	switch g.mode {
	case ApprovalAuto:
		return nil
	case ApprovalDeny:
		return contract.Errorf(contract.CodeDenied, "%s may not call %s: approval.mode is deny (set it to ask or auto to let sub-agents write)", p.AgentID, p.Tool)
	}
	now := time.Now()
	p.ID = newID()
	p.RequestedMS, p.ExpiresMS = now.UnixMilli(), now.Add(g.timeout).UnixMilli()
	if err := g.store.Park(ctx, p); err != nil {
		return contract.Errorf(contract.CodeDenied, "%s's %s call was refused: approvals cannot be kept right now (%v)", p.AgentID, p.Tool, err)
	}
	defer g.store.Remove(context.WithoutCancel(ctx), p.ID)
	g.log.Info("a sub-agent's call waits for approval: decide with openhuman.approval_decide", "id", p.ID, "agent", p.AgentID, "tool", p.Tool, "client", p.Client, "timeout", g.timeout)
	d, ok, err := g.store.Wait(ctx, p.ID, g.timeout)
	g.record(ctx, p, d, ok, err)
	switch {
	case err != nil:
		return contract.Errorf(contract.CodeDenied, "%s's %s call was refused: its approval could not be awaited (%v)", p.AgentID, p.Tool, err)
	case !ok:
		return contract.Errorf(contract.CodeDenied, "%s's %s call was refused: nobody approved it within %s (approval %s)", p.AgentID, p.Tool, g.timeout, p.ID)
	case !d.Approve:
		reason := d.Reason
		if reason == "" {
			reason = "no reason given"
		}
		return contract.Errorf(contract.CodeDenied, "%s's %s call was denied by the approver: %s", p.AgentID, p.Tool, reason)
	}
	return nil
}

// record keeps how p ended for the list of decided calls. A wait that
// failed decided nothing and is not listed.
func (g *Gate) record(ctx context.Context, p Pending, d Decision, ok bool, err error) {
	if err != nil {
		return
	}
	r := Decided{PendingApproval: p, Outcome: OutcomeTimedOut, DecidedMS: time.Now().UnixMilli()}
	if ok {
		r.Outcome, r.Reason, r.DecidedBy, r.DecidedToken = OutcomeDenied, d.Reason, d.By, d.Token
		if d.Approve {
			r.Outcome = OutcomeApproved
		}
	}
	if err := g.store.Record(context.WithoutCancel(ctx), r); err != nil {
		g.log.Warn("a decided approval could not be kept for listing", "id", p.ID, "err", err)
	}
}

// Decided returns the decided calls cc may see, newest first.
func (g *Gate) Decided(ctx context.Context, cc contract.CallContext) ([]Decided, error) {
	ds, err := g.store.Decided(ctx)
	if err != nil {
		return nil, contract.Errorf(contract.CodeUnavailable, "decided approvals cannot be read right now: %v", err)
	}
	out := []Decided{}
	for _, d := range ds {
		if visibleTo(d.PendingApproval, cc) {
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].DecidedMS > out[j].DecidedMS })
	return out, nil
}

// List returns the calls waiting that cc may see, oldest first.
func (g *Gate) List(ctx context.Context, cc contract.CallContext) ([]Pending, error) {
	ps, err := g.store.List(ctx)
	if err != nil {
		return nil, contract.Errorf(contract.CodeUnavailable, "approvals cannot be read right now: %v", err)
	}
	now := time.Now().UnixMilli()
	out := []Pending{}
	for _, p := range ps {
		if p.ExpiresMS > now && visibleTo(p, cc) {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].RequestedMS < out[j].RequestedMS })
	return out, nil
}

// Decide answers the call id for cc. A call cc may not see is answered as
// one that does not wait at all.
func (g *Gate) Decide(ctx context.Context, id string, d Decision, cc contract.CallContext) error {
	if cc.Scoped() {
		visible, err := g.List(ctx, cc)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(visible, func(p Pending) bool { return p.ID == id }) {
			return NotPending(id)
		}
	}
	err := g.store.Decide(ctx, id, d)
	var ce *contract.Error
	if err != nil && !errors.As(err, &ce) {
		return contract.Errorf(contract.CodeUnavailable, "approvals cannot be reached right now: %v", err)
	}
	return err
}

func newID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// NotPending is the error for a decision nobody waits for.
func NotPending(id string) error {
	return contract.Errorf(contract.CodeNotFound, "no call waits for approval %q (decided, timed out, or never asked); openhuman.approval_list names those waiting", id).With("field", "id")
}

// MemoryApprovals keeps parked calls in this process.
type MemoryApprovals struct {
	mu      sync.Mutex
	pending map[string]*parked
	decided []Decided // oldest first
}

type parked struct {
	p        Pending
	decision chan Decision
}

var _ Approvals = (*MemoryApprovals)(nil)

// NewMemoryApprovals returns an empty in-process store.
func NewMemoryApprovals() *MemoryApprovals {
	return &MemoryApprovals{pending: map[string]*parked{}}
}

// Park adds p.
func (m *MemoryApprovals) Park(_ context.Context, p Pending) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pending[p.ID] = &parked{p: p, decision: make(chan Decision, 1)}
	return nil
}

// Wait blocks until id is decided, timeout passes or ctx ends.
func (m *MemoryApprovals) Wait(ctx context.Context, id string, timeout time.Duration) (Decision, bool, error) {
	m.mu.Lock()
	pk, ok := m.pending[id]
	m.mu.Unlock()
	if !ok {
		return Decision{}, false, NotPending(id)
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case d := <-pk.decision:
		return d, true, nil
	case <-t.C:
		return Decision{}, false, nil
	case <-ctx.Done():
		return Decision{}, false, ctx.Err()
	}
}

// Remove forgets id.
func (m *MemoryApprovals) Remove(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.pending, id)
	return nil
}

// List returns what waits.
func (m *MemoryApprovals) List(context.Context) ([]Pending, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Pending, 0, len(m.pending))
	for _, pk := range m.pending {
		out = append(out, pk.p)
	}
	return out, nil
}

// Decide hands d to the waiting call; a call is decided once.
func (m *MemoryApprovals) Decide(_ context.Context, id string, d Decision) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	pk, ok := m.pending[id]
	if !ok {
		return NotPending(id)
	}
	delete(m.pending, id)
	pk.decision <- d
	return nil
}

// Record keeps d, dropping the oldest past maxDecided.
func (m *MemoryApprovals) Record(_ context.Context, d Decided) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.decided = append(m.decided, d)
	if len(m.decided) > maxDecided {
		m.decided = slices.Clone(m.decided[len(m.decided)-maxDecided:])
	}
	return nil
}

// Decided lists the decided calls, newest first.
func (m *MemoryApprovals) Decided(context.Context) ([]Decided, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := slices.Clone(m.decided)
	slices.Reverse(out)
	return out, nil
}

package agents

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Outcome is how a run a client called ended, kept by the call's id
// (CallContext.Call) so that the client can collect it with a later
// request: an MCP 2026-07-28 client whose first request was answered
// input_required while the run waited for approval. Token and Workspaces
// are the caller's: only the same caller collects it.
type Outcome struct {
	Token      string          `json:"token,omitempty"`
	Workspaces []string        `json:"workspaces,omitempty"`
	Result     *RunResult      `json:"result,omitempty"`
	Error      *contract.Error `json:"error,omitempty"`
}

// OutcomeTTL is how long an outcome is kept for collection.
const OutcomeTTL = 15 * time.Minute

// Results keeps runs' outcomes by call id for OutcomeTTL. Two backends: in
// the process (NewMemoryResults) and Redis, so that any replica of the
// agents service answers for a run another one made.
type Results interface {
	Put(ctx context.Context, call string, o Outcome) error
	// Get returns call's outcome, false while there is none.
	Get(ctx context.Context, call string) (Outcome, bool, error)
}

// NewOutcome is the outcome of a run that returned res or err for cc.
func NewOutcome(res *RunResult, err error, cc contract.CallContext) Outcome {
	o := Outcome{Token: cc.Token, Workspaces: cc.Workspaces, Result: res}
	if err != nil {
		o.Result, o.Error = nil, contract.AsError(err)
	}
	return o
}

// Collect returns call's outcome for cc: done false while the run goes on,
// and as well when the outcome is another caller's (it is not cc's to
// know that it exists).
func Collect(ctx context.Context, rs Results, call string, cc contract.CallContext) (contract.RunResult, error) {
	o, ok, err := rs.Get(ctx, call)
	if err != nil {
		return contract.RunResult{}, contract.Errorf(contract.CodeUnavailable, "run outcomes cannot be read right now: %v", err)
	}
	if !ok || o.Token != cc.Token || !slices.Equal(o.Workspaces, cc.Workspaces) {
		return contract.RunResult{}, nil
	}
	out := contract.RunResult{Done: true, Error: o.Error}
	if o.Result != nil {
		raw, err := contract.Marshal(o.Result)
		if err != nil {
			return contract.RunResult{}, contract.Errorf(contract.CodeInternal, "encoding a run's outcome: %v", err)
		}
		out.Result = raw
	}
	return out, nil
}

// MemoryResults keeps outcomes in this process.
type MemoryResults struct {
	mu   sync.Mutex
	byID map[string]kept
	now  func() time.Time
}

type kept struct {
	o       Outcome
	expires time.Time
}

var _ Results = (*MemoryResults)(nil)

// NewMemoryResults returns an empty in-process store.
func NewMemoryResults() *MemoryResults {
	return &MemoryResults{byID: map[string]kept{}, now: time.Now}
}

// Put keeps o, and drops what has expired.
func (m *MemoryResults) Put(_ context.Context, call string, o Outcome) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for id, k := range m.byID {
		if now.After(k.expires) {
			delete(m.byID, id)
		}
	}
	m.byID[call] = kept{o: o, expires: now.Add(OutcomeTTL)}
	return nil
}

// Get returns call's outcome unless it expired.
func (m *MemoryResults) Get(_ context.Context, call string) (Outcome, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.byID[call]
	if !ok || m.now().After(k.expires) {
		return Outcome{}, false, nil
	}
	return k.o, true, nil
}

// Package healthwindow counts each tool's calls and failures over the last
// few minutes, from which the registry tells a degraded tool from a healthy
// one.
package healthwindow

import (
	"sync"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Span is how far back health looks at a tool's failures.
const Span = 5 * time.Minute

// Window counts each tool's calls and failures over the last few minutes,
// in one-minute buckets. A failure is the server's fault (the service was
// down, the engine failed). A caller's mistake counts neither way: as a
// failure it would let any caller mark a tool degraded, and as a call it
// would let one hide the failures of others under its own.
type Window struct {
	mu     sync.Mutex
	now    func() time.Time
	byTool map[string]*[5]bucket
}

type bucket struct {
	minute          int64
	calls, failures int
}

// New returns an empty window read on the clock now.
func New(now func() time.Time) *Window {
	return &Window{now: now, byTool: map[string]*[5]bucket{}}
}

// Record counts one call of tool that ended with err.
func (r *Window) Record(tool string, err error) {
	if callerFault(err) {
		return
	}
	minute := r.now().Unix() / 60
	r.mu.Lock()
	defer r.mu.Unlock()
	w, ok := r.byTool[tool]
	if !ok {
		w = &[5]bucket{}
		r.byTool[tool] = w
	}
	b := &w[minute%int64(len(w))]
	if b.minute != minute {
		*b = bucket{minute: minute}
	}
	b.calls++
	if err != nil {
		b.failures++
	}
}

// Counts returns calls and failures within Span.
func (r *Window) Counts(tool string) (calls, failures int) {
	minute := r.now().Unix() / 60
	r.mu.Lock()
	defer r.mu.Unlock()
	w, ok := r.byTool[tool]
	if !ok {
		return 0, 0
	}
	for _, b := range w {
		if minute-b.minute < int64(len(w)) {
			calls += b.calls
			failures += b.failures
		}
	}
	return calls, failures
}

// callerFault reports whether err is the caller's to fix: arguments the
// schema or the service refused (a forged cursor among them), a scope or
// policy denial, something that does not exist, a mode this engine does
// not serve.
func callerFault(err error) bool {
	switch contract.ErrorCode(err) {
	case contract.CodeInvalidRequest, contract.CodeDenied, contract.CodeNotFound, contract.CodeUnsupported:
		return true
	}
	return false
}

package healthwindow

import (
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

func TestRecentCountsServerFaultsInTheWindow(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	r := New(func() time.Time { return now })
	r.Record("memory.fetch", nil)
	r.Record("memory.fetch", contract.Errorf(contract.CodeInvalidRequest, "bad"))
	r.Record("memory.fetch", contract.Errorf(contract.CodeUnavailable, "down"))
	now = now.Add(2 * time.Minute)
	r.Record("memory.fetch", contract.Errorf(contract.CodeEngine, "disk"))
	if calls, failures := r.Counts("memory.fetch"); calls != 3 || failures != 2 {
		t.Errorf("calls %d failures %d, want 3 and 2 (a caller's mistake is not counted)", calls, failures)
	}
	now = now.Add(4 * time.Minute) // the first minute has left the window
	if calls, failures := r.Counts("memory.fetch"); calls != 1 || failures != 1 {
		t.Errorf("calls %d failures %d, want 1 and 1", calls, failures)
	}
	now = now.Add(10 * time.Minute)
	if calls, _ := r.Counts("memory.fetch"); calls != 0 {
		t.Errorf("old calls still counted: %d", calls)
	}
	if calls, _ := r.Counts("memory.learn"); calls != 0 {
		t.Errorf("unknown tool has calls")
	}
}

// TestRecentIgnoresCallersMistakes: no caller moves a tool's health with
// requests of its own making, neither marking it degraded with bad ones
// nor hiding other calls' failures under a flood of them.
func TestRecentIgnoresCallersMistakes(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	r := New(func() time.Time { return now })
	for _, code := range []contract.Code{contract.CodeInvalidRequest, contract.CodeDenied, contract.CodeNotFound, contract.CodeUnsupported} {
		for range 25 {
			r.Record("memory.fetch", contract.Errorf(code, "the caller's"))
		}
	}
	r.Record("memory.fetch", contract.Errorf(contract.CodeEngine, "disk"))
	r.Record("memory.fetch", contract.Errorf(contract.CodeUnavailable, "down"))
	r.Record("memory.fetch", nil)
	if calls, failures := r.Counts("memory.fetch"); calls != 3 || failures != 2 {
		t.Errorf("calls %d failures %d, want 3 and 2: 100 caller mistakes hid two failures in three", calls, failures)
	}
}

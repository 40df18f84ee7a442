package contract

import (
	"slices"
	"testing"
)

// The tools that change state are exactly those a read-only token is
// refused; a new one must be added here on purpose.
func TestToolScope(t *testing.T) {
	var act []string
	for _, tl := range Tools() {
		if tl.Scope() == ScopeAct {
			act = append(act, tl.Name)
		}
	}
	want := []string{"memory.learn", "memory.forget", "agent.run_subagent", "approval.decide"}
	if !slices.Equal(act, want) {
		t.Errorf("tools needing scope act: %v, want %v", act, want)
	}
	if (Tool{Name: "x.unannotated"}).Scope() != ScopeAct {
		t.Error("a tool without a read-only hint must need scope act")
	}
}

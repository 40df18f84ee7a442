package policy

import (
	"testing"
	"time"
)

func TestActionBudgetSlidesOverTheHour(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	p := New(AutonomyFull, 3)
	p.now = func() time.Time { return now }
	for i := range 3 {
		if err := p.Allow("memory.learn", "mcp"); err != nil {
			t.Fatalf("act %d: %v", i, err)
		}
		now = now.Add(10 * time.Minute)
	}
	if err := p.Allow("memory.learn", "mcp"); err == nil {
		t.Fatal("a fourth act within the hour")
	}
	now = now.Add(31 * time.Minute) // the first act is now over an hour old
	if err := p.Allow("memory.learn", "mcp"); err != nil {
		t.Fatalf("after the first act aged out: %v", err)
	}
	if err := p.Allow("memory.learn", "mcp"); err == nil {
		t.Fatal("the budget refilled by more than the acts that aged out")
	}
	posture, denials := p.Posture()
	if posture["actions_last_hour"] != 3 || len(denials) != 2 {
		t.Fatalf("posture %v denials %v", posture, denials)
	}
	// Unlimited and read-only.
	if err := New(AutonomyFull, 0).Allow("memory.learn", "mcp"); err != nil {
		t.Fatal(err)
	}
	if err := New(AutonomyReadOnly, 0).Allow("memory.forget", "mcp"); err == nil {
		t.Fatal("read-only allowed a forget")
	}
}

package agents

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// TestResultsCollect: a run's outcome is collected by the caller that ran
// it, never by another, and not once it has expired.
func TestResultsCollect(t *testing.T) {
	ctx := context.Background()
	rs := NewMemoryResults()
	now := time.Now()
	rs.now = func() time.Time { return now }
	owner := contract.CallContext{Token: "alice", Workspaces: []string{"w1"}}
	if err := rs.Put(ctx, "c1", NewOutcome(&RunResult{AgentID: "note_taker", Response: "done"}, nil, owner)); err != nil {
		t.Fatal(err)
	}
	if err := rs.Put(ctx, "c2", NewOutcome(nil, contract.Errorf(contract.CodeDenied, "no"), owner)); err != nil {
		t.Fatal(err)
	}
	got, err := Collect(ctx, rs, "c1", owner)
	if err != nil || !got.Done || got.Error != nil || !strings.Contains(string(got.Result), `"response":"done"`) {
		t.Fatalf("owner: %+v %v", got, err)
	}
	if got, _ := Collect(ctx, rs, "c2", owner); !got.Done || got.Error == nil || got.Error.Code != contract.CodeDenied {
		t.Fatalf("a failed run: %+v", got)
	}
	for _, cc := range []contract.CallContext{{Token: "bob", Workspaces: []string{"w1"}}, {Token: "alice"}} {
		if got, _ := Collect(ctx, rs, "c1", cc); got.Done {
			t.Errorf("%+v collected another's run", cc)
		}
	}
	if got, _ := Collect(ctx, rs, "nope", owner); got.Done {
		t.Error("an unknown call is done")
	}
	now = now.Add(OutcomeTTL + time.Second)
	if got, _ := Collect(ctx, rs, "c1", owner); got.Done {
		t.Error("an expired outcome is still collected")
	}
}

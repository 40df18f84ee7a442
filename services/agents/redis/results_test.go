package redis_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn/redistest"
	"github.com/openhuman-go/openhuman-go/services/agents"
	"github.com/openhuman-go/openhuman-go/services/agents/redis"
)

// TestResults: both stores keep a run's outcome for the caller that ran
// it, and for nobody else.
func TestResults(t *testing.T) {
	for name, open := range map[string]func(t *testing.T) agents.Results{
		"memory": func(*testing.T) agents.Results { return agents.NewMemoryResults() },
		"redis": func(t *testing.T) agents.Results {
			prefix := redistest.Prefix(t)
			c, err := redisconn.New(redistest.URL(), prefix, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			return redis.NewResults(c)
		},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			rs := open(t)
			owner := contract.CallContext{Token: "alice", Workspaces: []string{"w1"}}
			if got, err := agents.Collect(ctx, rs, "c1", owner); err != nil || got.Done {
				t.Fatalf("before the run ended: %+v %v", got, err)
			}
			if err := rs.Put(ctx, "c1", agents.NewOutcome(&agents.RunResult{AgentID: "note_taker", Response: "done"}, nil, owner)); err != nil {
				t.Fatal(err)
			}
			if err := rs.Put(ctx, "c2", agents.NewOutcome(nil, contract.Errorf(contract.CodeDenied, "refused"), owner)); err != nil {
				t.Fatal(err)
			}
			got, err := agents.Collect(ctx, rs, "c1", owner)
			if err != nil || !got.Done || !strings.Contains(string(got.Result), `"response":"done"`) {
				t.Fatalf("c1: %+v %v", got, err)
			}
			if got, _ := agents.Collect(ctx, rs, "c2", owner); !got.Done || got.Error == nil || got.Error.Code != contract.CodeDenied {
				t.Fatalf("c2: %+v", got)
			}
			if got, _ := agents.Collect(ctx, rs, "c1", contract.CallContext{Token: "bob", Workspaces: []string{"w1"}}); got.Done {
				t.Error("another caller collected the run")
			}
		})
	}
}

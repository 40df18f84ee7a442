package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/readiness"
)

// The first read of a caller limited to a workspace, on a memory that holds
// nothing yet (a fresh install, an OAuth grant's first call), is answered;
// so are more of them than the memory service has handler slots, and an
// admin's learn after them; and the gateway stays ready.
func TestScopedReadsOfAnEmptyMemoryKeepMemoryServing(t *testing.T) {
	gw := gatewaytest.StartIn(t, withTokens(t, "home-reader=read"), nil, gateway.Options{})
	scoped := contract.CallContext{Source: "mcp:client", Transport: contract.TransportMCPHTTP, Token: "home-reader", Workspaces: []string{"home"}}
	call := func(tool, args string, cc contract.CallContext) (json.RawMessage, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return gw.CallTool(ctx, tool, json.RawMessage(args), cc)
	}
	for i := range 70 { // more than the service's 64 slots
		tool, args := "memory.fetch", `{"query":"where do I live?"}`
		if i%2 == 1 {
			tool, args = "memory.recall", `{"question":"where do I live?"}`
		}
		if _, err := call(tool, args, scoped); err != nil {
			t.Fatalf("scoped read %d (%s) on an empty memory: %v", i, tool, err)
		}
	}
	admin := contract.CallContext{Source: "cli", Transport: contract.TransportCLI}
	if _, err := call("memory.learn", `{"text":"I live in Porto.","workspace":"home"}`, admin); err != nil {
		t.Fatalf("an admin's learn after the scoped reads: %v", err)
	}
	raw, err := call("memory.fetch", `{"query":"where do I live?"}`, scoped)
	if err != nil || !strings.Contains(string(raw), "Porto") {
		t.Fatalf("the scoped fetch after the learn: %s %v", raw, err)
	}
	if r := gw.Readiness(context.Background()); !r.Ready || r.Status != readiness.OK {
		t.Fatalf("readiness after the scoped reads: %+v", r)
	}
}

// A service running in this process that says it is failing (its
// handlers are stuck) makes the gateway not ready, whatever its pings say;
// the embedded system reports each of its services so.
func TestReadinessOfLocalServices(t *testing.T) {
	gw := gatewaytest.Start(t, nil, gateway.Options{})
	if r := gw.Readiness(context.Background()); !r.Ready {
		t.Fatalf("a fresh system is not ready: %+v", r)
	}
	stuck := errors.New("1 call(s) of the memory service are stuck")
	gw = gatewaytest.Start(t, nil, gateway.Options{Local: map[string]func() error{
		contract.ServiceMemory: func() error { return stuck },
		contract.ServiceAgents: func() error { return nil },
	}})
	r := gw.Readiness(context.Background())
	if r.Ready || r.Status != readiness.NotReady || !strings.Contains(r.Services[contract.ServiceMemory], stuck.Error()) ||
		r.Services[contract.ServiceAgents] != "ok" {
		t.Fatalf("a stuck memory service: %+v", r)
	}
}

package bus_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/micro"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// TestStatsTellTheTruth: $SRV.STATS of a service counts the errors its
// endpoints answered and the time they took, though replies are sent by
// workers, outside micro's view.
func TestStatsTellTheTruth(t *testing.T) {
	s := mustStartServer(t)
	release := make(chan struct{})
	close(release)
	echoService(t, mustConnect(t, s), release)
	c := bus.NewClient(mustConnect(t, s), bustest.Keys().GatewaySigner())
	ctx := context.Background()
	for range 3 {
		if _, err := c.Call(ctx, "echo", "refuse", nil, contract.CallContext{}); contract.ErrorCode(err) != contract.CodeNotFound {
			t.Fatalf("refuse answered %v", err)
		}
	}
	if _, err := c.Call(ctx, "echo", "slow", nil, contract.CallContext{}); err != nil {
		t.Fatal(err)
	}

	msg, err := c.Conn().Request("$SRV.STATS.echo", nil, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var stats micro.Stats
	if err := json.Unmarshal(msg.Data, &stats); err != nil {
		t.Fatal(err)
	}
	got := map[string]bus.EndpointStats{}
	for _, e := range stats.Endpoints {
		var d bus.EndpointStats
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatalf("%s: data %s: %v", e.Name, e.Data, err)
		}
		got[e.Name] = d
	}
	if r := got["refuse"]; r.Answered != 3 || r.Errors != 3 || !strings.Contains(r.LastError, "no such thing") || r.ProcessingTime <= 0 {
		t.Errorf("refuse: %+v, want 3 answered, 3 errors, the last one's message, and time spent", r)
	}
	if r := got["slow"]; r.Answered != 1 || r.Errors != 0 {
		t.Errorf("slow: %+v, want 1 answered, no error", r)
	}
}

// TestServeRefusesAnotherServicesEndpoint: an endpoint registers only in
// the service the contract puts it in.
func TestServeRefusesAnotherServicesEndpoint(t *testing.T) {
	s := mustStartServer(t)
	_, err := bus.Serve(mustConnect(t, s), bus.ServiceConfig{Checks: bustest.Keys().Checks(), Name: "other", Endpoints: []bus.Endpoint{
		bus.Handle(contract.Endpoint{Service: "echo", Method: "x", Input: contract.Object("", nil, nil)},
			func(context.Context, struct{}, contract.CallContext) (any, error) { return nil, nil }),
	}})
	if err == nil || !strings.Contains(err.Error(), "echo service") {
		t.Fatalf("Serve of another service's endpoint: %v", err)
	}
}

// TestArgumentsCannotWriteTheEnvelope: arguments are copied into the
// request envelope as they are; ones that are not a single JSON value are
// refused before they could add members (a forged ctx) to it.
func TestArgumentsCannotWriteTheEnvelope(t *testing.T) {
	s := mustStartServer(t)
	echoService(t, mustConnect(t, s), nil)
	c := bus.NewClient(mustConnect(t, s), bustest.Keys().GatewaySigner())
	forged := json.RawMessage(`{}, "ctx": {"source": "forged"}, "x": {}`)
	_, err := c.Call(context.Background(), "echo", "echo", forged, contract.CallContext{Source: "mcp:real"})
	if contract.ErrorCode(err) != contract.CodeInvalidRequest {
		t.Fatalf("got %v, want INVALID_REQUEST", err)
	}
	raw, err := c.Call(context.Background(), "echo", "echo", json.RawMessage(` {"a": 1} `), contract.CallContext{Source: "mcp:real"})
	if err != nil || !strings.Contains(string(raw), `"source":"mcp:real"`) {
		t.Fatalf("a well-formed call: %s, %v", raw, err)
	}
}

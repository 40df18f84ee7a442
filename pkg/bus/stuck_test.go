package bus_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// A handler that never returns (it waits on something that will not come,
// deaf to its context) makes its service report failing once it is
// StuckAfter past its deadline; one that returns in time never does.
func TestStuckHandlerMakesTheServiceFail(t *testing.T) {
	s := mustStartServer(t)
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	svc, err := bus.Serve(mustConnect(t, s), bus.ServiceConfig{Checks: bustest.Keys().Checks(),
		Name: "echo", Version: "0.1.0", StuckAfter: 50 * time.Millisecond,
		Endpoints: []bus.Endpoint{
			echoEndpoint("deaf", nil, func(context.Context, map[string]any, contract.CallContext) (any, error) {
				<-never
				return nil, nil
			}),
			echoEndpoint("stall", nil, func(ctx context.Context, _ map[string]any, _ contract.CallContext) (any, error) {
				<-ctx.Done()
				return nil, contract.Errorf(contract.CodeUnavailable, "gave up")
			}),
		}})
	if err != nil {
		t.Fatal(err)
	}
	c := bus.NewClient(mustConnect(t, s), bustest.Keys().GatewaySigner())
	call := func(method string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := c.Call(ctx, "echo", method, map[string]any{}, contract.CallContext{Source: "test"})
		return err
	}
	if err := call("stall"); contract.ErrorCode(err) != contract.CodeUnavailable {
		t.Fatalf("stall: %v", err)
	}
	time.Sleep(200 * time.Millisecond)
	if err := svc.Failing(); err != nil {
		t.Fatalf("a handler that gave up at its deadline made the service fail: %v", err)
	}
	if err := call("deaf"); contract.ErrorCode(err) != contract.CodeUnavailable {
		t.Fatalf("deaf: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for svc.Failing() == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	err = svc.Failing()
	if err == nil || !strings.Contains(err.Error(), "echo.deaf") || !strings.Contains(err.Error(), "restart") {
		t.Fatalf("a handler stuck past its deadline: Failing() = %v", err)
	}
}

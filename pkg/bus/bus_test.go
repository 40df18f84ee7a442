package bus_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/testbuf"
)

func mustStartServer(tb testing.TB) *embedded.Server {
	tb.Helper()
	s, err := embedded.Start(embedded.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Shutdown)
	return s
}

func mustConnect(tb testing.TB, s *embedded.Server) *nats.Conn {
	tb.Helper()
	nc, err := s.Connect(tb.Name(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(nc.Close)
	return nc
}

// echoEndpoint is an endpoint of the test service "echo"; a nil input
// takes no arguments.
func echoEndpoint(method string, input *contract.Schema, h func(context.Context, map[string]any, contract.CallContext) (any, error)) bus.Endpoint {
	if input == nil {
		input = contract.Object("", nil, nil)
	}
	return bus.Handle(contract.Endpoint{Service: "echo", Method: method, Input: input}, h)
}

// echoService serves test endpoints; "slow" answers once release is
// closed, and says on slowStarted (when not nil) that a call has begun.
func echoService(tb testing.TB, nc *nats.Conn, release chan struct{}, slowStarted ...chan struct{}) *bus.Service {
	tb.Helper()
	type args = map[string]any
	svc, err := bus.Serve(nc, bus.ServiceConfig{Checks: bustest.Keys().Checks(),
		Name: "echo", Version: "0.1.0",
		Endpoints: []bus.Endpoint{
			echoEndpoint("echo", contract.Object("", nil, map[string]*contract.Schema{"a": contract.Integer("")}),
				func(_ context.Context, p args, cc contract.CallContext) (any, error) {
					return map[string]any{"params": p, "source": cc.Source, "timeout_ms": cc.TimeoutMS}, nil
				}),
			echoEndpoint("checked", contract.Object("", []string{"n"}, map[string]*contract.Schema{"n": contract.Integer("").Range(1, 5)}),
				func(_ context.Context, p args, _ contract.CallContext) (any, error) { return p, nil }),
			echoEndpoint("refuse", nil, func(context.Context, args, contract.CallContext) (any, error) {
				return nil, contract.Errorf(contract.CodeNotFound, "no such thing")
			}),
			echoEndpoint("leak", nil, func(context.Context, args, contract.CallContext) (any, error) {
				return nil, errors.New("password=hunter2 at db.internal")
			}),
			echoEndpoint("panic", nil, func(context.Context, args, contract.CallContext) (any, error) {
				panic("boom")
			}),
			echoEndpoint("stall", nil, func(ctx context.Context, _ args, _ contract.CallContext) (any, error) {
				<-ctx.Done()
				return nil, contract.Errorf(contract.CodeUnavailable, "gave up")
			}),
			echoEndpoint("goroutine", nil, func(context.Context, args, contract.CallContext) (any, error) {
				buf := make([]byte, 64)
				return strings.Fields(string(buf[:runtime.Stack(buf, false)]))[1], nil // "goroutine N [running]:"
			}),
			echoEndpoint("slow", nil, func(ctx context.Context, _ args, _ contract.CallContext) (any, error) {
				for _, c := range slowStarted {
					c <- struct{}{}
				}
				select {
				case <-release:
					return "released", nil
				case <-ctx.Done():
					return nil, contract.Errorf(contract.CodeUnavailable, "gave up")
				}
			}),
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = svc.Stop() })
	return svc
}

func TestCall(t *testing.T) {
	s := mustStartServer(t)
	release := make(chan struct{})
	defer close(release)
	echoService(t, mustConnect(t, s), release)
	c := bus.NewClient(mustConnect(t, s), bustest.Keys().GatewaySigner())
	ctx := context.Background()
	cc := contract.CallContext{Source: "mcp:test"}

	t.Run("result and context travel", func(t *testing.T) {
		raw, err := c.Call(ctx, "echo", "echo", map[string]int{"a": 1}, cc)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Params    map[string]int `json:"params"`
			Source    string         `json:"source"`
			TimeoutMS int64          `json:"timeout_ms"`
		}
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		if got.Params["a"] != 1 || got.Source != "mcp:test" {
			t.Errorf("got %+v", got)
		}
		if got.TimeoutMS <= 0 || got.TimeoutMS > bus.DefaultTimeout.Milliseconds() {
			t.Errorf("deadline did not travel: timeout_ms=%d", got.TimeoutMS)
		}
	})
	t.Run("service validates its input", func(t *testing.T) {
		_, err := c.Call(ctx, "echo", "checked", map[string]int{"n": 9}, cc)
		if contract.ErrorCode(err) != contract.CodeInvalidRequest || !strings.Contains(err.Error(), "`n`") {
			t.Fatalf("got %v", err)
		}
		raw, err := c.Call(ctx, "echo", "checked", map[string]int{"n": 3}, cc)
		if err != nil || string(raw) != `{"n":3}` {
			t.Fatalf("got %s, %v", raw, err)
		}
	})
	t.Run("coded errors cross the bus", func(t *testing.T) {
		_, err := c.Call(ctx, "echo", "refuse", nil, cc)
		if contract.ErrorCode(err) != contract.CodeNotFound || err.Error() != "no such thing" {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("foreign errors do not leak", func(t *testing.T) {
		_, err := c.Call(ctx, "echo", "leak", nil, cc)
		if contract.ErrorCode(err) != contract.CodeInternal || strings.Contains(err.Error(), "hunter2") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("panic is contained", func(t *testing.T) {
		_, err := c.Call(ctx, "echo", "panic", nil, cc)
		if contract.ErrorCode(err) != contract.CodeInternal || !strings.Contains(err.Error(), "crashed") {
			t.Fatalf("got %v", err)
		}
		if _, err := c.Call(ctx, "echo", "echo", nil, cc); err != nil {
			t.Fatalf("service stopped serving after a panic: %v", err)
		}
	})
	t.Run("timeout is UNAVAILABLE", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := c.Call(ctx, "echo", "stall", nil, cc)
		// Either side may notice first: the handler sees the deadline that
		// travelled with the request, the client its own context.
		if contract.ErrorCode(err) != contract.CodeUnavailable {
			t.Fatalf("got %v", err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("timeout took %s", took)
		}
	})
	t.Run("nobody listening is UNAVAILABLE at once", func(t *testing.T) {
		start := time.Now()
		_, err := c.Call(ctx, "nosuch", "x", nil, cc)
		if contract.ErrorCode(err) != contract.CodeUnavailable || !strings.Contains(err.Error(), "openhuman-nosuch") {
			t.Fatalf("got %v", err)
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("waited %s for no responders", time.Since(start))
		}
	})
	t.Run("a slow call does not block others", func(t *testing.T) {
		done := make(chan error, 1)
		go func() {
			_, err := c.Call(ctx, "echo", "slow", nil, cc)
			done <- err
		}()
		var n atomic.Int32
		for i := 0; i < 20; i++ {
			if _, err := c.Call(ctx, "echo", "echo", nil, cc); err == nil {
				n.Add(1)
			}
		}
		if n.Load() != 20 {
			t.Errorf("%d of 20 fast calls answered while a slow one ran", n.Load())
		}
		release <- struct{}{}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
	t.Run("discovery lists served subjects", func(t *testing.T) {
		served := c.Served(ctx, "echo", "nosuch")
		if !served["openhuman.echo.echo"] || !served["openhuman.echo.slow"] || len(served) != 8 {
			t.Errorf("served = %v", served)
		}
	})
}

func TestStopWaitsForInFlight(t *testing.T) {
	s := mustStartServer(t)
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	svc := echoService(t, mustConnect(t, s), release, started)
	c := bus.NewClient(mustConnect(t, s), bustest.Keys().GatewaySigner())
	done := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), "echo", "slow", nil, contract.CallContext{})
		done <- err
	}()
	<-started // the request is in the handler
	stopped := make(chan struct{})
	go func() { _ = svc.Stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("Stop returned while a request was in flight")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-stopped
	if err := <-done; err != nil {
		t.Fatalf("in-flight request lost on Stop: %v", err)
	}
}

// TestWorkersAreReused: requests one after another run on the same
// goroutine (its stack already grown), and the workers end when the
// service stops.
func TestWorkersAreReused(t *testing.T) {
	s := mustStartServer(t)
	svc := echoService(t, mustConnect(t, s), nil)
	c := bus.NewClient(mustConnect(t, s), bustest.Keys().GatewaySigner())
	// The client's first call sets up its reply subscription, whose
	// goroutines last as long as the connection.
	if _, err := c.Call(context.Background(), "echo", "echo", nil, contract.CallContext{}); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	seen := map[string]int{}
	for i := 0; i < 50; i++ {
		res, err := c.Call(context.Background(), "echo", "goroutine", nil, contract.CallContext{})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		seen[string(res)]++
		// A worker takes the next request once it has finished the
		// bookkeeping after its reply; give it that moment even on a
		// busy machine, where the caller can be quicker.
		time.Sleep(2 * time.Millisecond)
	}
	if len(seen) > 10 {
		t.Errorf("50 calls one after another ran on %d goroutines, want a reused few: %v", len(seen), seen)
	}
	if err := svc.Stop(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Stop, %d before the calls: workers left running", n, before)
	}
}

// TestReachableWhenServeReturns: a caller on another connection must find
// the service as soon as Serve has returned, not "no responders".
func TestReachableWhenServeReturns(t *testing.T) {
	s := mustStartServer(t)
	c := bus.NewClient(mustConnect(t, s), bustest.Keys().GatewaySigner())
	for i := 0; i < 100; i++ {
		nc := mustConnect(t, s)
		name := fmt.Sprintf("svc%d", i)
		svc, err := bus.Serve(nc, bus.ServiceConfig{Checks: bustest.Keys().Checks(), Name: name, Version: "0.1.0", Endpoints: []bus.Endpoint{
			bus.Handle(contract.Endpoint{Service: name, Method: "ping", Input: contract.Object("", nil, nil)},
				func(context.Context, struct{}, contract.CallContext) (any, error) { return "pong", nil }),
		}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Call(context.Background(), fmt.Sprintf("svc%d", i), "ping", nil, contract.CallContext{}); err != nil {
			t.Fatalf("call %d right after Serve: %v", i, err)
		}
		_ = svc.Stop()
		nc.Close()
	}
}

// The starter labels a service's logger (service=<name>, as the embedded
// system and run.Service do); Serve must not label it a second time.
func TestServiceLogsNameTheServiceOnce(t *testing.T) {
	s := mustStartServer(t)
	var buf testbuf.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil)).With("service", "echo")
	_, err := bus.Serve(mustConnect(t, s), bus.ServiceConfig{Checks: bustest.Keys().Checks(), Name: "echo", Version: "0.1.0", Logger: log, Endpoints: []bus.Endpoint{
		echoEndpoint("leak", nil, func(context.Context, map[string]any, contract.CallContext) (any, error) {
			return nil, errors.New("boom")
		}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bus.NewClient(mustConnect(t, s), bustest.Keys().GatewaySigner()).Call(context.Background(), "echo", "leak", struct{}{}, contract.CallContext{}); err == nil {
		t.Fatal("leak succeeded")
	}
	line := buf.String()
	if !strings.Contains(line, "handler failed") || strings.Count(line, "service=echo") != 1 {
		t.Errorf("log %q: want one service=echo", line)
	}
}

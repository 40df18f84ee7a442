package bus_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// replica serves the test service "pair" on a connection of its own, so
// closing that connection takes the replica off the bus the way a killed
// process goes. Its "hold" endpoint answers with the replica's name, once
// release is closed (at once when it is nil); started hears of each call.
func replica(tb testing.TB, nc *nats.Conn, name string, release chan struct{}, started chan string) {
	tb.Helper()
	hold := contract.Endpoint{Service: "pair", Method: "hold", Input: contract.Object("", nil, nil)}
	_, err := bus.Serve(nc, bus.ServiceConfig{Checks: bustest.Keys().Checks(), Name: "pair", Version: "0.1.0", MaxConcurrent: 1, Endpoints: []bus.Endpoint{
		bus.Handle(hold, func(ctx context.Context, _ struct{}, _ contract.CallContext) (any, error) {
			if started != nil {
				started <- name
			}
			if release != nil {
				select {
				case <-release:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return name, nil
		}),
	}})
	if err != nil {
		tb.Fatal(err)
	}
}

// TestCallFailsOverWhenItsReplicaDies: the replica holding a call drops off
// the bus; the call is sent again to the other replica when the contract
// allows it, and otherwise fails saying it may have been partly done. Either
// way within ReplicaSilence and a margin, not the call's 30 s deadline.
func TestCallFailsOverWhenItsReplicaDies(t *testing.T) {
	for _, tc := range []struct {
		name      string
		retryable bool
	}{{"a read is sent again", true}, {"a call that is not retryable fails", false}} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustStartServer(t)
			c := bus.NewClient(mustConnect(t, s), bustest.Keys().GatewaySigner())
			never := make(chan struct{})
			defer close(never)
			started := make(chan string, 4)
			ep := contract.Endpoint{Service: "pair", Method: "hold", Retryable: tc.retryable}
			// Until a replica of the service has sent it a heartbeat, the
			// client cannot tell the service from an older one that never
			// does; a replica greets each caller at its first call.
			warm := make(chan struct{})
			close(warm)
			ncW := mustConnect(t, s)
			replica(t, ncW, "warm", warm, nil)
			if raw, err := c.CallEndpoint(context.Background(), ep, nil, contract.CallContext{}); err != nil || string(raw) != `"warm"` {
				t.Fatalf("got %s, %v", raw, err)
			}
			ncW.Close()
			ncA := mustConnect(t, s)
			replica(t, ncA, "a", never, started)
			type outcome struct {
				raw json.RawMessage
				err error
			}
			done := make(chan outcome, 1)
			go func() {
				raw, err := c.CallEndpoint(context.Background(), ep, nil, contract.CallContext{})
				done <- outcome{raw, err}
			}()
			if who := <-started; who != "a" {
				t.Fatalf("the call reached %s", who)
			}
			replica(t, mustConnect(t, s), "b", nil, nil)
			ncA.Close()
			killed := time.Now()
			var got outcome
			select {
			case got = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the call still waits 10 s after its replica went away")
			}
			if took := time.Since(killed); took > bus.ReplicaSilence+time.Second {
				t.Errorf("the call ended %s after its replica went away", took)
			}
			if tc.retryable {
				if got.err != nil || string(got.raw) != `"b"` {
					t.Fatalf("got %s, %v; want the other replica's answer", got.raw, got.err)
				}
				return
			}
			e := contract.AsError(got.err)
			if e == nil || e.Code != contract.CodeUnavailable || e.Data["reason"] != contract.ReasonReplicaStopped ||
				!strings.Contains(e.Message, "stopped answering") || !strings.Contains(e.Message, "partly done") {
				t.Fatalf("got %s, %#v", got.raw, e)
			}
		})
	}
}

// TestBusyReplicaIsNotTakenForDead: a call queued behind a long one, on a
// replica that handles one at a time, waits longer than ReplicaSilence and
// is still answered: the replica heartbeats for the calls it holds, not
// only the one it runs.
func TestBusyReplicaIsNotTakenForDead(t *testing.T) {
	s := mustStartServer(t)
	c := bus.NewClient(mustConnect(t, s), bustest.Keys().GatewaySigner())
	release := make(chan struct{})
	hold := contract.Endpoint{Service: "busy", Method: "hold",
		Input: contract.Object("", nil, map[string]*contract.Schema{"wait": contract.Boolean("")})}
	type args struct {
		Wait bool `json:"wait"`
	}
	_, err := bus.Serve(mustConnect(t, s), bus.ServiceConfig{Checks: bustest.Keys().Checks(), Name: "busy", Version: "0.1.0", MaxConcurrent: 1, Endpoints: []bus.Endpoint{
		bus.Handle(hold, func(_ context.Context, a args, _ contract.CallContext) (any, error) {
			if a.Wait {
				<-release
			}
			return "done", nil
		}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	// The greeting at the first call tells the client that the service
	// heartbeats, so silence counts from the start of the next ones.
	if _, err := c.CallEndpoint(context.Background(), hold, args{}, contract.CallContext{}); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := c.CallEndpoint(context.Background(), hold, args{Wait: true}, contract.CallContext{})
			errs <- err
		}()
	}
	select {
	case err := <-errs:
		t.Fatalf("a call ended while the replica held it: %v", err)
	case <-time.After(2 * bus.ReplicaSilence):
	}
	close(release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestReplicaWithoutHeartbeats: a service that never heartbeats (an older
// one, or anything answering plain NATS requests) is given the call's whole
// deadline, not taken for dead after ReplicaSilence. Such a service
// answers unsealed, which only an unsigned call takes.
func TestReplicaWithoutHeartbeats(t *testing.T) {
	s := mustStartServer(t)
	c := bus.NewClient(mustConnect(t, s), nil)
	slow := make(chan struct{})
	nc := mustConnect(t, s)
	_, err := nc.QueueSubscribe(contract.Subject("legacy", "get"), contract.QueueGroup, func(m *nats.Msg) {
		var req struct {
			Params struct {
				Slow bool `json:"slow"`
			} `json:"params"`
		}
		_ = json.Unmarshal(m.Data, &req)
		if req.Params.Slow {
			<-slow
		}
		_ = m.Respond([]byte(`{"result":"old"}`))
	})
	if err == nil {
		err = nc.Flush()
	}
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if raw, err := c.Call(ctx, "legacy", "get", nil, contract.CallContext{}); err != nil || string(raw) != `"old"` {
		t.Fatalf("got %s, %v", raw, err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Call(ctx, "legacy", "get", map[string]bool{"slow": true}, contract.CallContext{})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the call to a service without heartbeats ended before it answered: %v", err)
	case <-time.After(2 * bus.ReplicaSilence):
	}
	close(slow)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestReadSentAgainPastASilentReplica: a replica that takes calls and never
// answers nor heartbeats (a frozen process whose connection stays open)
// may be handed a call sent again too; a read is then sent a third time,
// and answered by a live replica.
func TestReadSentAgainPastASilentReplica(t *testing.T) {
	s := mustStartServer(t)
	c := bus.NewClient(mustConnect(t, s), bustest.Keys().GatewaySigner())
	ep := contract.Endpoint{Service: "pair", Method: "hold", Retryable: true}
	warm := make(chan struct{})
	close(warm)
	ncW := mustConnect(t, s)
	replica(t, ncW, "warm", warm, nil)
	if _, err := c.CallEndpoint(context.Background(), ep, nil, contract.CallContext{}); err != nil {
		t.Fatal(err)
	}
	ncW.Close()

	// mute joins the queue group and swallows what it is given.
	arrived := make(chan struct{}, 4)
	done := make(chan error, 1)
	mute := func() *nats.Subscription {
		nc := mustConnect(t, s)
		sub, err := nc.QueueSubscribe(ep.Subject(), contract.QueueGroup, func(*nats.Msg) { arrived <- struct{}{} })
		if err == nil {
			err = nc.Flush() // the server knows of it before a call is sent
		}
		if err != nil {
			t.Fatal(err)
		}
		return sub
	}
	await := func() {
		t.Helper()
		select {
		case <-arrived:
		case err := <-done:
			t.Fatalf("the call ended before it reached the silent replica: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatal("the call did not reach the silent replica")
		}
	}
	first := mute()
	go func() {
		raw, err := c.CallEndpoint(context.Background(), ep, nil, contract.CallContext{})
		if err == nil && string(raw) != `"live"` {
			err = errors.New("answered by " + string(raw))
		}
		done <- err
	}()
	await()
	// The call sent again finds only another mute replica.
	second := mute()
	first.Unsubscribe()
	await()
	replica(t, mustConnect(t, s), "live", nil, nil)
	second.Unsubscribe()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("a read past two silent replicas: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the read still waits 20 s on")
	}
}

package bus_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// The $SRV subjects (PING, INFO, STATS) that micro serves for every
// service must answer on inboxes only, as the service's own endpoints do
// (TestServiceAnswersOnlyInboxes): a caller naming another subject as the
// reply has the service publish its ping, info or stats there, under the
// service's own NATS user, which allow_responses lets publish to any
// reply subject it was handed.
func TestSRVAnswersOnlyInboxes(t *testing.T) {
	verbs := []string{"$SRV.PING", "$SRV.PING.echo", "$SRV.INFO.echo", "$SRV.STATS.echo"}
	t.Run("into a stream", func(t *testing.T) {
		js, caller := srvVictim(t, false)
		for _, verb := range verbs {
			if err := caller.PublishRequest(verb, "victim.planted", nil); err != nil {
				t.Fatal(err)
			}
		}
		settle(t, caller, verbs)
		if n := streamMsgs(t, js); n != 3 {
			t.Errorf("stream VICTIM holds %d messages after $SRV requests replying into it, want the 3 it had", n)
		}
	})
	// A JetStream API that takes unknown fields (jetstream { strict:
	// false }) reads a ping as a purge request with no filter: purge all.
	t.Run("to the purge API", func(t *testing.T) {
		js, caller := srvVictim(t, true)
		if err := caller.PublishRequest("$SRV.PING.echo", "$JS.API.STREAM.PURGE.VICTIM", nil); err != nil {
			t.Fatal(err)
		}
		settle(t, caller, verbs[1:2])
		if n := streamMsgs(t, js); n != 3 {
			t.Errorf("stream VICTIM holds %d messages after a $SRV.PING replying to its purge API, want the 3 it had", n)
		}
	})
}

// srvVictim starts a server with the stream VICTIM of 3 messages and the
// service echo, and returns a JetStream context and a raw caller.
func srvVictim(t *testing.T, lax bool) (nats.JetStreamContext, *nats.Conn) {
	t.Helper()
	s, err := embedded.StartServer(&server.Options{DontListen: true, NoLog: true, NoSigs: true,
		JetStream: true, StoreDir: t.TempDir(), NoJetStreamStrict: lax})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	js, err := mustConnect(t, s).JetStream()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.AddStream(&nats.StreamConfig{Name: "VICTIM", Subjects: []string{"victim.>"}}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := js.Publish("victim.note", []byte(`{"op":"put"}`)); err != nil {
			t.Fatal(err)
		}
	}
	_, err = bus.Serve(mustConnect(t, s), bus.ServiceConfig{Checks: bustest.Keys().Checks(), Name: "echo", Version: "0.1.0",
		Endpoints: []bus.Endpoint{echoEndpoint("echo", nil, func(context.Context, map[string]any, contract.CallContext) (any, error) { return "ok", nil })}})
	if err != nil {
		t.Fatal(err)
	}
	return js, mustConnect(t, s)
}

// settle asks each verb once more, properly: micro answers a
// subscription's requests in order, so once these are answered the
// earlier ones were too; then it lets what they published reach the
// stream.
func settle(t *testing.T, nc *nats.Conn, verbs []string) {
	t.Helper()
	for _, verb := range verbs {
		if _, err := nc.Request(verb, nil, 5*time.Second); err != nil {
			t.Fatalf("%s: %v", verb, err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the stream's store is asynchronous to the publisher
}

func streamMsgs(t *testing.T, js nats.JetStreamContext) uint64 {
	t.Helper()
	info, err := js.StreamInfo("VICTIM")
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

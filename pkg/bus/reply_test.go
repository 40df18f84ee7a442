package bus_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/testbuf"
)

// A service must answer and heartbeat only on inbox subjects: the server
// lets it publish to whatever reply subject a request names, and an empty
// heartbeat on $JS.API.STREAM.DELETE.<stream> is a valid request to delete
// the stream.
func TestServiceAnswersOnlyInboxes(t *testing.T) {
	s, err := embedded.Start(embedded.Options{JetStream: true, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	admin := mustConnect(t, s)
	js, err := admin.JetStream()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.AddStream(&nats.StreamConfig{Name: "VICTIM", Subjects: []string{"victim.>"}}); err != nil {
		t.Fatal(err)
	}

	var logs testbuf.Buffer
	release := make(chan struct{})
	_, err = bus.Serve(mustConnect(t, s), bus.ServiceConfig{Checks: bustest.Keys().Checks(),
		Name: "echo", Version: "0.1.0",
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Endpoints: []bus.Endpoint{echoEndpoint("slow", nil, func(ctx context.Context, _ map[string]any, _ contract.CallContext) (any, error) {
			select {
			case <-release:
				return "released", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})},
	})
	if err != nil {
		t.Fatal(err)
	}

	// Whatever the service publishes on the subjects it was handed.
	watcher := mustConnect(t, s)
	got := make(chan *nats.Msg, 64)
	for _, subj := range []string{"$JS.API.STREAM.DELETE.VICTIM", "openhuman.x"} {
		if _, err := watcher.ChanSubscribe(subj, got); err != nil {
			t.Fatal(err)
		}
	}
	if err := watcher.Flush(); err != nil {
		t.Fatal(err)
	}

	caller := mustConnect(t, s)
	for _, reply := range []string{"$JS.API.STREAM.DELETE.VICTIM", "$JS.API.STREAM.DELETE.VICTIM", "openhuman.x"} {
		msg := &nats.Msg{Subject: "openhuman.echo.slow", Reply: reply,
			Header: nats.Header{bus.HeartbeatHeader: {"ask"}}, Data: []byte(`{"params":{},"ctx":{}}`)}
		if err := caller.PublishMsg(msg); err != nil {
			t.Fatal(err)
		}
	}
	if err := caller.Flush(); err != nil {
		t.Fatal(err)
	}

	// A normal call held past several heartbeats still gets its answer.
	c := bus.NewClient(mustConnect(t, s), bustest.Keys().GatewaySigner())
	done := make(chan error, 1)
	go func() {
		raw, err := c.Call(context.Background(), "echo", "slow", struct{}{}, contract.CallContext{})
		if err == nil && string(raw) != `"released"` {
			err = &contract.Error{Code: contract.CodeInternal, Message: "got " + string(raw)}
		}
		done <- err
	}()
	time.Sleep(1300 * time.Millisecond) // heartbeats go every 500 ms
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("normal call: %v", err)
	}
	if err := watcher.Flush(); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		t.Fatalf("service published %q (header %v) on %s", m.Data, m.Header, m.Subject)
	default:
	}
	if _, err := js.StreamInfo("VICTIM"); err != nil {
		t.Fatalf("stream: %v", err)
	}
	out := logs.String()
	if n := strings.Count(out, "reply subject is not an inbox"); n != 2 {
		t.Errorf("want one warning per kind of subject ($JS, openhuman), got %d:\n%s", n, out)
	}
	if !strings.Contains(out, "level=WARN") {
		t.Errorf("want warnings, got:\n%s", out)
	}
}

package run

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/testbuf"
)

// slowService serves openhuman.slow.hold, which holds each call until
// release is closed, then answers {"held":true}; entered gets a value as
// each call starts.
func slowService(entered chan<- struct{}, release <-chan struct{}) Service {
	return Service{Name: "openhuman-slow", About: "serves slow calls",
		Start: func(nc *nats.Conn, _ config.Config, _ *slog.Logger) (io.Closer, error) {
			s, err := bus.Serve(nc, bus.ServiceConfig{Checks: bustest.Keys().Checks(), Name: "slow", Version: "0.1.0", Endpoints: []bus.Endpoint{
				bus.Handle(contract.Endpoint{Service: "slow", Method: "hold", Input: contract.Object("", nil, nil)},
					func(context.Context, struct{}, contract.CallContext) (any, error) {
						entered <- struct{}{}
						<-release
						return map[string]bool{"held": true}, nil
					}),
			}})
			if err != nil {
				return nil, err
			}
			return stopper{s}, nil
		}}
}

// hold calls openhuman.slow.hold as the gateway would.
func hold(nc *nats.Conn, timeout time.Duration) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return bus.NewClient(nc, bustest.Keys().GatewaySigner()).Call(ctx, "slow", "hold", struct{}{}, contract.CallContext{})
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startSlow runs the slow service binary against a fresh NATS server until
// its healthcheck passes; the binary's exit code arrives on the channel.
func startSlow(t *testing.T, grace string, entered chan struct{}, release chan struct{}) (nc *nats.Conn, metrics string, stderr *testbuf.Buffer, exit <-chan int) {
	t.Helper()
	srv, err := embedded.StartServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	metrics = freeAddr(t)
	stderr = &testbuf.Buffer{}
	code := make(chan int, 1)
	environ := []string{"OPENHUMAN_HOME=" + t.TempDir(), "OPENHUMAN_NATS_URL=" + srv.ClientURL(),
		"OPENHUMAN_METRICS_ADDR=" + metrics, "OPENHUMAN_SHUTDOWN_GRACE_SECONDS=" + grace}
	go func() { code <- slowService(entered, release).Main(nil, io.Discard, stderr, environ) }()
	deadline := time.Now().Add(10 * time.Second)
	for Healthcheck(metrics, io.Discard, io.Discard) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("not ready after 10s; stderr:\n%s", stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if nc, err = nats.Connect(srv.ClientURL()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc, metrics, stderr, code
}

// A call being handled when SIGTERM arrives still gets its answer: the
// binary stops taking calls (its /readyz says so), lets the call finish
// within the grace period, sends the answer, and exits 0.
func TestSIGTERMLetsCallsInFlightFinish(t *testing.T) {
	entered, release := make(chan struct{}, 1), make(chan struct{})
	nc, metrics, stderr, exit := startSlow(t, "10", entered, release)
	answer := make(chan json.RawMessage, 1)
	go func() {
		res, err := hold(nc, 15*time.Second)
		if err != nil {
			t.Errorf("the call in flight at SIGTERM got no answer: %v", err)
		}
		answer <- res
	}()
	<-entered
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Not ready while it drains, and saying why on one line.
	deadline := time.Now().Add(5 * time.Second)
	var why bytes.Buffer
	for {
		why.Reset()
		if Healthcheck(metrics, io.Discard, &why) == 1 && strings.Contains(why.String(), "shutting down") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("healthcheck while draining: %q, want a failure saying shutting down", why.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := strings.Count(why.String(), "\n"); n != 1 {
		t.Errorf("healthcheck said %q, want one line", why.String())
	}
	select {
	case code := <-exit:
		t.Fatalf("exited %d with a call in flight; stderr:\n%s", code, stderr)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	res := <-answer
	if res == nil {
		return
	}
	var got struct{ Held bool }
	if err := json.Unmarshal(res, &got); err != nil || !got.Held {
		t.Errorf("answer %s, want the call's result", res)
	}
	select {
	case code := <-exit:
		if code != 0 {
			t.Errorf("exit %d, want 0; stderr:\n%s", code, stderr)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("still running 5s after its last call ended; stderr:\n%s", stderr)
	}
}

// A call still running when the grace period ends is cut off: the binary
// exits 1 on time, saying which setting to raise.
func TestSIGTERMGracePeriodBoundsShutdown(t *testing.T) {
	entered, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release)
	nc, _, stderr, exit := startSlow(t, "1", entered, release)
	go func() { _, _ = hold(nc, 10*time.Second) }()
	<-entered
	start := time.Now()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exit:
		// Not before the grace period ends; how long after depends on the
		// machine, so only the wait below bounds it.
		if took := time.Since(start); took < time.Second {
			t.Errorf("exited after %s, before the grace period of 1s", took)
		}
		if code != 1 || !strings.Contains(stderr.String(), "OPENHUMAN_SHUTDOWN_GRACE_SECONDS") {
			t.Errorf("exit %d, stderr:\n%s\nwant 1 naming OPENHUMAN_SHUTDOWN_GRACE_SECONDS", code, stderr)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("still running 15s after SIGTERM with a grace period of 1s; stderr:\n%s", stderr)
	}
}

// The healthcheck subcommand exits 0 against a ready service and 1 with a
// one-line reason against nothing, and refuses when /readyz is off.
func TestHealthcheckSubcommand(t *testing.T) {
	entered, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release)
	_, metrics, _, exit := startSlow(t, "1", entered, release)
	home := t.TempDir()
	for _, tc := range []struct {
		name   string
		addr   string
		code   int
		stderr string
	}{
		{"ready", metrics, 0, ""},
		{"nothing listens", freeAddr(t), 1, "unhealthy: http://127.0.0.1:"},
		{"unspecified host is asked on loopback", "0.0.0.0:" + metrics[strings.LastIndex(metrics, ":")+1:], 0, ""},
		{"metrics off", "off", 1, "set OPENHUMAN_METRICS_ADDR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := slowService(entered, release).Main([]string{"healthcheck"}, &out, &errb,
				[]string{"OPENHUMAN_HOME=" + home, "OPENHUMAN_METRICS_ADDR=" + tc.addr})
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tc.code, errb.String())
			}
			if tc.stderr == "" && errb.Len() > 0 || !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stderr %q, want %q", errb.String(), tc.stderr)
			}
			if n := strings.Count(errb.String(), "\n"); n > 1 {
				t.Errorf("stderr %q, want one line at most", errb.String())
			}
		})
	}
	// The service is still running: stop it the way an orchestrator does.
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := <-exit; code != 0 {
		t.Errorf("exit %d after SIGTERM with no call in flight, want 0", code)
	}
}

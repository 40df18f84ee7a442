package embedded

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/config"
)

// closerFunc is an io.Closer of a service.
type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// A service whose Close never returns (a handler stuck for good holds its
// Stop) does not keep Shutdown, and so the process, from ending with its
// context; the services after it are still closed once before it.
func TestShutdownDoesNotWaitForAStuckService(t *testing.T) {
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	closed := make(chan struct{})
	s := &System{services: []io.Closer{
		closerFunc(func() error { <-never; return nil }),
		closerFunc(func() error { close(closed); return nil }),
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Shutdown(ctx) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "grace period") {
			t.Fatalf("Shutdown past its context = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown waited for a service that never stops")
	}
	<-closed
	if err := s.Close(); err != nil {
		t.Fatalf("a second close did something: %v", err)
	}
}

// The embedded system's services report their readiness to the gateway.
func TestEmbeddedServicesReportReadiness(t *testing.T) {
	cfg, err := config.Load(t.TempDir(), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	local := s.GatewayOptions(cfg).Local
	for _, name := range []string{"memory", "search", "agents"} {
		ready, ok := local[name]
		if !ok {
			t.Fatalf("no readiness of %s among %v", name, local)
		}
		if err := ready(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

package jetstream

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// A gap the follower cannot read, because its NATS server is down, is
// logged, counted and read again until the server is back; the replica
// applies nothing past it meanwhile, then every event of it in order.
func TestFillGapRetriesAFailedReadWithoutPassingIt(t *testing.T) {
	gapReadWait = 200 * time.Millisecond
	t.Cleanup(func() { gapReadWait = 5 * time.Second })
	dir := t.TempDir()
	port := freePort(t)
	start := func() *embedded.Server {
		ns, err := embedded.Start(embedded.Options{Port: port, JetStream: true, StoreDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return ns
	}
	ns := start()
	nc, err := nats.Connect(ns.ClientURL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	j, err := Open(ctx, nc, Options{IDKey: testIDKey})
	if err != nil {
		t.Fatal(err)
	}
	var items []memory.Item
	var last uint64
	for i := range 3 {
		it, seq := appendNote(t, j, fmt.Sprintf("Fact %d behind the gap.", i))
		items, last = append(items, it), seq
	}
	st, in := mustReplica(t, j)
	f := j.NewFollower("a", st, FollowOptions{})

	ns.Shutdown()
	errorsBefore := testutil.ToFloat64(gapReadErrors)
	done := make(chan error, 1)
	go func() { done <- f.fillGap(ctx, last+1) }()
	for testutil.ToFloat64(gapReadErrors) < errorsBefore+2 {
		select {
		case err := <-done:
			t.Fatalf("the gap fill returned %v while its server was down, applied up to %d", err, st.Applied())
		case <-ctx.Done():
			t.Fatal("no failed read of the gap was counted")
		case <-time.After(20 * time.Millisecond):
		}
	}
	if st.Applied() != 0 {
		t.Fatalf("the replica moved to %d while it could not read the gap", st.Applied())
	}
	ns = start()
	t.Cleanup(ns.Shutdown)
	if err := <-done; err != nil {
		t.Fatalf("the gap fill once the server was back: %v", err)
	}
	if st.Applied() != last {
		t.Errorf("applied up to %d, want %d", st.Applied(), last)
	}
	for i, it := range items {
		if !holds(t, in, it.ID) {
			t.Errorf("fact %d of the gap was not applied", i)
		}
	}
}

// freePort is a port of 127.0.0.1 nothing listens on, so a server can be
// started on it again after it stops.
func freePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	_, p, _ := net.SplitHostPort(l.Addr().String())
	port, _ := strconv.Atoi(p)
	return port
}

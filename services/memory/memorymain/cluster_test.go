package memorymain

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/jetstream"
)

// freePorts reserves n free local ports and releases them for servers to take.
func freePorts(tb testing.TB, n int) []int {
	tb.Helper()
	var ports []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// startCluster runs three JetStream servers routed to each other, in process.
func startCluster(tb testing.TB) []*embedded.Server {
	tb.Helper()
	cports := freePorts(tb, 3)
	var routes []string
	for _, p := range cports {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	nodes := make([]*embedded.Server, 3)
	for i := range nodes {
		opts := &natsserver.Options{ServerName: fmt.Sprintf("n%d", i), Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true,
			JetStream: true, StoreDir: tb.TempDir(), MaxPayload: 8 << 20,
			Cluster: natsserver.ClusterOpts{Name: "openhuman", Host: "127.0.0.1", Port: cports[i]},
			Routes:  natsserver.RoutesFromStr(strings.Join(routes, ","))}
		ns, err := embedded.StartServer(opts)
		if err != nil {
			tb.Fatal(err)
		}
		nodes[i] = ns
		tb.Cleanup(ns.Shutdown)
	}
	// The stream can be made once the servers elected a JetStream leader.
	nc, err := nats.Connect(nodes[0].ClientURL())
	if err != nil {
		tb.Fatal(err)
	}
	defer nc.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		_, err := jetstream.Open(ctx, nc, jetstream.Options{Replicas: 3})
		cancel()
		if err == nil {
			return nodes
		}
		if time.Now().After(deadline) {
			tb.Fatalf("the cluster has no JetStream after 30 s: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// An R3 stream on three servers: one server stops in the middle of the
// writes, writes go on, and every acknowledged write is on both replicas.
func TestClusterKeepsAcknowledgedWritesWhenAServerStops(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-server cluster")
	}
	nodes := startCluster(t)
	url := strings.Join([]string{nodes[0].ClientURL(), nodes[1].ClientURL(), nodes[2].ClientURL()}, ",")
	a := startReplica(t, replConfig(t, url, t.TempDir(), 3))
	b := startReplica(t, replConfig(t, url, t.TempDir(), 3))
	var acked []string
	failedAfter := 0
	for i := range 300 {
		if i == 100 {
			nodes[2].Shutdown()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		w := a
		if i%2 == 1 {
			w = b
		}
		res, err := w.domain.Learn(ctx, memory.LearnParams{Text: fmt.Sprintf("Cluster fact %d survives a server stopping.", i)}, contract.CallContext{Source: "cli"})
		cancel()
		if err != nil {
			if i >= 100 {
				failedAfter++
			}
			t.Logf("learn %d: %v", i, err)
			continue
		}
		acked = append(acked, res.ID)
	}
	if failedAfter > 20 {
		t.Fatalf("%d of 200 writes failed after a server stopped: writes did not go on", failedAfter)
	}
	t.Logf("%d writes acknowledged, %d failed after n2 stopped", len(acked), failedAfter)
	last := lastSeq(t, nodes[0].ClientURL())
	caughtUp(t, a, last)
	caughtUp(t, b, last)
	for _, s := range []*server{a, b} {
		for _, id := range acked {
			if _, err := s.store.Item(context.Background(), id, nil); err != nil {
				t.Fatalf("replica %s lost acknowledged write %s: %v", s.repl.name, id, err)
			}
		}
	}
}

package system_test

import (
	"crypto/rand"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// TestDeployNATSClusterRoutesLogIn loads deploy/nats/nats-N.conf with the
// environment docker-compose.yml gives the servers, and runs them: a
// route that logs in as "route" joins, one without the password or with
// a wrong one does not, so nothing else reaching port 6222 bypasses the
// users of auth.conf.
func TestDeployNATSClusterRoutesLogIn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-server NATS cluster several times; make test-long runs it")
	}
	for _, u := range users {
		t.Setenv("NATS_"+strings.ToUpper(u)+"_PASSWORD", rand.Text())
	}
	pw := rand.Text()
	t.Setenv("NATS_CLUSTER_PASSWORD", pw)
	for i := 1; i <= 3; i++ {
		t.Setenv(fmt.Sprintf("NATS_ROUTE_%d", i), fmt.Sprintf("nats://route:%s@nats-%d:6222", pw, i))
	}
	load := func(n int) *server.Options {
		t.Helper()
		opts, err := server.ProcessConfigFile(filepath.Join("..", "..", "..", "deploy", "nats", fmt.Sprintf("nats-%d.conf", n)))
		if err != nil {
			t.Fatal(err)
		}
		return opts
	}

	o1 := load(1)
	if o1.Cluster.Username != "route" || o1.Cluster.Password != pw {
		t.Errorf("cluster authorization %q/%q, want user route with NATS_CLUSTER_PASSWORD", o1.Cluster.Username, o1.Cluster.Password)
	}
	if len(o1.Routes) != 3 {
		t.Fatalf("routes %v, want nats-1..3", o1.Routes)
	}
	for i, r := range o1.Routes {
		got, _ := r.User.Password()
		if r.User.Username() != "route" || got != pw || r.Host != fmt.Sprintf("nats-%d:6222", i+1) {
			t.Errorf("route %d: %s, want it to log in as route with NATS_CLUSTER_PASSWORD", i+1, r.Redacted())
		}
	}
	if o1.HTTPHost != "127.0.0.1" || o1.HTTPPort != 8222 {
		t.Errorf("monitoring on %s:%d, want 127.0.0.1:8222 only", o1.HTTPHost, o1.HTTPPort)
	}

	// The servers on loopback ports, without monitoring or JetStream.
	start := func(o *server.Options, routes ...*url.URL) *server.Server {
		t.Helper()
		o.Host, o.Port, o.HTTPPort, o.JetStream, o.NoLog, o.NoSigs = "127.0.0.1", -1, 0, false, true, true
		o.Cluster.Host, o.Cluster.Port, o.Routes = "127.0.0.1", -1, routes
		s, err := server.NewServer(o)
		if err != nil {
			t.Fatal(err)
		}
		s.Start()
		t.Cleanup(s.Shutdown)
		if !s.ReadyForConnections(10 * time.Second) {
			t.Fatal("server not ready")
		}
		return s
	}
	first := start(o1)
	to := func(u *url.URL) *url.URL { c := *u; c.Host = first.ClusterAddr().String(); return &c }
	o2 := load(2)
	second := start(o2, to(o2.Routes[0]))
	for deadline := time.Now().Add(10 * time.Second); second.NumRoutes() == 0 || first.NumRoutes() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("a route with the cluster password did not join")
		}
		time.Sleep(50 * time.Millisecond)
	}

	anonymous := start(load(3), to(&url.URL{Scheme: "nats"}))
	wrong := start(load(3), to(&url.URL{Scheme: "nats", User: url.UserPassword("route", "guess")}))
	time.Sleep(2 * time.Second) // routes retry every second
	// The first server's routes are the second's only. Their number is no
	// measure: a pair of servers opens a pool of routes, not all at once.
	rz, err := first.Routez(&server.RoutezOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rz.Routes {
		if r.RemoteID != second.ID() {
			t.Errorf("the first server has a route to %s, not the second server", r.RemoteID)
		}
	}
	if anonymous.NumRoutes() != 0 || wrong.NumRoutes() != 0 {
		t.Errorf("routes without the password joined: anonymous %d, wrong password %d", anonymous.NumRoutes(), wrong.NumRoutes())
	}
}

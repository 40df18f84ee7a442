package embedded_test

import (
	"crypto/rand"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
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
	start := func(o *server.Options, log server.Logger, routes ...*url.URL) *server.Server {
		t.Helper()
		o.Host, o.Port, o.HTTPPort, o.JetStream, o.NoLog, o.NoSigs = "127.0.0.1", -1, 0, false, true, true
		o.Cluster.Host, o.Cluster.Port, o.Routes = "127.0.0.1", -1, routes
		s, err := server.NewServer(o)
		if err != nil {
			t.Fatal(err)
		}
		if log != nil {
			s.SetLogger(log, false, false)
		}
		s.Start()
		t.Cleanup(s.Shutdown)
		if !s.ReadyForConnections(10 * time.Second) {
			t.Fatal("server not ready")
		}
		return s
	}
	refused := newRefusals()
	first := start(o1, refused)
	to := func(u *url.URL) *url.URL { c := *u; c.Host = first.ClusterAddr().String(); return &c }
	o2 := load(2)
	second := start(o2, nil, to(o2.Routes[0]))
	for deadline := time.Now().Add(30 * time.Second); second.NumRoutes() == 0 || first.NumRoutes() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("a route with the cluster password did not join")
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Each is refused, and refused again when it tries again (routes
	// retry every second; one try opens several connections of the pool
	// at once, so a second refusal at the same moment is no retry). Their
	// own count of routes is no measure: the accepting server sends its
	// INFO before it reads the login, so a refused server holds a route
	// for the moment between that INFO and the refusal. The first server
	// decides, and holds none.
	start(load(3), nil, to(&url.URL{Scheme: "nats"}))
	start(load(3), nil, to(&url.URL{Scheme: "nats", User: url.UserPassword("route", "guess")}))
	const anonymous, wrong = "", `User "route"`
	for deadline := time.Now().Add(30 * time.Second); !refused.retried(anonymous) || !refused.retried(wrong); {
		if time.Now().After(deadline) {
			t.Fatalf("within 30s the first server did not refuse, on a try and on the next, both a route without the password and one with a wrong password: %s", refused)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The first server's routes are the second's only, and the second's the
	// first's (a route let in would be gossiped to it). Their number is no
	// measure: a pair of servers opens a pool of routes, not all at once.
	for _, p := range []struct{ from, to *server.Server }{{first, second}, {second, first}} {
		rz, err := p.from.Routez(&server.RoutezOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rz.Routes {
			if r.RemoteID != p.to.ID() {
				t.Errorf("server %s has a route to %s, not only to %s", p.from.ID(), r.RemoteID, p.to.ID())
			}
		}
	}
}

// refusals records, from a server's log, when it refused logins, by the
// user they named: "" for none, `User "route"` for that user.
type refusals struct {
	mu          sync.Mutex
	first, last map[string]time.Time
}

func newRefusals() *refusals {
	return &refusals{first: map[string]time.Time{}, last: map[string]time.Time{}}
}

func (r *refusals) Errorf(format string, v ...any) {
	_, user, ok := strings.Cut(fmt.Sprintf(format, v...), server.ErrAuthentication.Error())
	if !ok {
		return
	}
	user = strings.TrimPrefix(user, " - ")
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.first[user]; !ok {
		r.first[user] = time.Now()
	}
	r.last[user] = time.Now()
}

// retried says whether user was refused again half a second or more after
// its first refusal: on another try, not another connection of the same.
func (r *refusals) retried(user string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	first, ok := r.first[user]
	return ok && r.last[user].Sub(first) >= 500*time.Millisecond
}

func (r *refusals) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprintf("first refusals %v, last %v", r.first, r.last)
}

func (*refusals) Noticef(string, ...any) {}
func (*refusals) Warnf(string, ...any)   {}
func (*refusals) Fatalf(string, ...any)  {}
func (*refusals) Debugf(string, ...any)  {}
func (*refusals) Tracef(string, ...any)  {}

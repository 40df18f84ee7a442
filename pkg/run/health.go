package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// readier is a started service that can say whether it should be sent
// calls: memory's store may be damaged or failing while the process runs.
type readier interface{ Ready() error }

// readiness is what a service binary's /readyz answers: not before its
// service is registered on NATS, not while NATS is out of reach, not once it
// is shutting down, and not while the service itself says it is unwell.
type readiness struct {
	mu       sync.Mutex
	nc       *nats.Conn
	started  io.Closer
	stopping bool
}

func (r *readiness) serving(nc *nats.Conn, c io.Closer) {
	r.mu.Lock()
	r.nc, r.started = nc, c
	r.mu.Unlock()
}

func (r *readiness) stop() {
	r.mu.Lock()
	r.stopping = true
	r.mu.Unlock()
}

func (r *readiness) check() error {
	r.mu.Lock()
	nc, started, stopping := r.nc, r.started, r.stopping
	r.mu.Unlock()
	switch {
	case stopping:
		return errors.New("shutting down")
	case started == nil:
		return errors.New("starting: not registered on NATS yet")
	case !nc.IsConnected():
		return fmt.Errorf("not connected to NATS (%s); reconnecting", strings.ToLower(nc.Status().String()))
	}
	if rd, ok := started.(readier); ok {
		return rd.Ready()
	}
	return nil
}

func (r *readiness) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	if err := r.check(); err != nil {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "not ready: "+err.Error()+"\n")
		return
	}
	_, _ = io.WriteString(w, "ready\n")
}

// probeTimeout bounds a healthcheck; an orchestrator's own timeout for it
// should be longer.
const probeTimeout = 3 * time.Second

// Healthcheck asks the /readyz of the server listening on addr (as
// configured: 0.0.0.0 and [::] are reached on loopback) whether it is
// ready. It returns the exit status of a `healthcheck` subcommand, 0 when
// it answered 200 and 1 otherwise, and says so on one line: of stdout when
// healthy, of stderr with why when not. A container image built FROM
// scratch has no curl to do this.
func Healthcheck(addr string, stdout, stderr io.Writer) int {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		fmt.Fprintf(stderr, "unhealthy: address %q is not HOST:PORT\n", addr)
		return 1
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	url := "http://" + net.JoinHostPort(host, port) + "/readyz"
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		fmt.Fprintf(stderr, "unhealthy: %v\n", err)
		return 1
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "unhealthy: %s: %v\n", url, err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		line := strings.Join(strings.Fields(string(body)), " ")
		if len(line) > 300 {
			line = line[:300] + "…"
		}
		fmt.Fprintf(stderr, "unhealthy: %s answered %s: %s\n", url, resp.Status, line)
		return 1
	}
	fmt.Fprintf(stdout, "healthy: %s answered %s\n", url, resp.Status)
	return 0
}

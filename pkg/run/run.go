// Package run holds the start-up steps every service binary shares: flags,
// configuration, logging, the NATS connection, and waiting for a signal.
package run

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/secrets"
	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
	"github.com/openhuman-go/openhuman-go/pkg/tracing"
)

// A Service is one service binary: its name, its default /metrics
// address, what --help says of it, and how it starts.
type Service struct {
	Name string
	// MetricsAddr is where /metrics and /healthz are served unless
	// configuration says otherwise.
	MetricsAddr string
	// About opens --help: what the binary serves.
	About string
	// Env lists in --help, after the variables every binary reads, those
	// of its own, one to a line and indented by two.
	Env string
	// InboxPrefix begins the subjects its replies come to ("_INBOX_agents"),
	// which NATS permissions let no other user read; empty is nats.go's
	// _INBOX, for a binary that asks nothing of other services.
	InboxPrefix string
	// Start registers the service on the bus and returns what to close on
	// the way out.
	Start func(nc *nats.Conn, cfg config.Config, log *slog.Logger) (io.Closer, error)
}

// usage is the --help text; the verbs take Name, MetricsAddr, About and
// Env.
const usage = `%[3]s

Usage:
  %[1]s [--home DIR] [--nats URL] [--verbose]
  %[1]s healthcheck    exit 0 when this service's /readyz answers 200, else 1
  %[1]s --version

Flags:
  --home DIR     data and config directory (default $OPENHUMAN_HOME or ~/.openhuman)
  --nats URL     NATS server to serve on (default $OPENHUMAN_NATS_URL; required)
  --verbose      debug logs on stderr
  --version      print the version

Environment (docs/configuration.md lists every setting and its variable):
  OPENHUMAN_NATS_URL      NATS server, such as nats://127.0.0.1:4222
  OPENHUMAN_NATS_USER, OPENHUMAN_NATS_PASSWORD
                          its credentials, or OPENHUMAN_NATS_TOKEN, _NKEY or _CREDS
                          (TLS: OPENHUMAN_NATS_TLS_CA, _TLS_CERT, _TLS_KEY)
  OPENHUMAN_HOME          data and config directory (default ~/.openhuman)
  OPENHUMAN_CONFIG        config file (default $OPENHUMAN_HOME/config.toml)
  OPENHUMAN_METRICS_ADDR  /metrics, /healthz and /readyz on HOST:PORT, or off (default %[2]s)
  OPENHUMAN_SHUTDOWN_GRACE_SECONDS
                          on SIGTERM, calls being handled get this long to finish (default 20)
  OPENHUMAN_LOG_LEVEL     debug, info, warn or error (default info)
%[4]s

Ports: /metrics, /healthz and /readyz on %[2]s; it opens no other, and reaches NATS
(and any provider or model) as a client. Logs go to stderr.
`

// Main runs the binary with the command line args and the environment
// environ (NAME=value entries) and returns its exit code: --help and
// --version print to stdout and exit 0, a command line it cannot parse
// exits 2, a failure 1.
func (s Service) Main(args []string, stdout, stderr io.Writer, environ []string) int {
	// NATS reports some failures from its own goroutines, through the
	// logger, while Main may be writing its last line: one lock keeps
	// lines whole on any writer, not only on a file.
	stderr = &lockedWriter{w: stderr}
	err := s.run(args, stdout, stderr, environ)
	if err == nil {
		return 0
	}
	if errors.Is(err, errUnhealthy) {
		return 1 // Healthcheck said why, on one line
	}
	fmt.Fprintf(stderr, "%s: %v\n", s.Name, err)
	if errors.As(err, new(usageError)) {
		fmt.Fprintf(stderr, "\n%s", s.usage())
		return 2
	}
	return 1
}

// A usageError is a mistake in the command line.
type usageError struct{ error }

func (s Service) usage() string { return fmt.Sprintf(usage, s.Name, s.MetricsAddr, s.About, s.Env) }

func (s Service) run(args []string, stdout, stderr io.Writer, environ []string) error {
	fs := flag.NewFlagSet(s.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	home := fs.String("home", "", "data and config directory")
	natsURL := fs.String("nats", "", "NATS URL")
	verbose := fs.Bool("verbose", false, "log debug output to stderr")
	version := fs.Bool("version", false, "print the version")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, s.usage())
			return nil
		}
		return usageError{err}
	}
	healthcheck := fs.NArg() == 1 && fs.Arg(0) == "healthcheck"
	if fs.NArg() > 0 && !healthcheck {
		return usageError{fmt.Errorf("no arguments are taken but healthcheck, got %q", fs.Args())}
	}
	if *version {
		fmt.Fprintln(stdout, s.Name, telemetry.Version)
		return nil
	}
	cfg, metricsAddr, err := s.config(*home, *natsURL, environ)
	if err != nil {
		return err
	}
	if healthcheck {
		return healthcheckAt(metricsAddr, stdout, stderr)
	}
	log := telemetry.NewLogger(stderr, cfg.Log.Level, *verbose).With("bin", s.Name)
	WarnConfig(log, cfg, environ)
	defer tracing.Start(s.Name, log)()
	return s.serve(cfg, metricsAddr, log)
}

// config loads the configuration from home and environ, with --nats over
// it, and says where metrics are served ("off" for nowhere).
func (s Service) config(home, natsURL string, environ []string) (config.Config, string, error) {
	cfg, err := config.Load(home, lookup(environ))
	if err != nil {
		return cfg, "", err
	}
	if natsURL != "" {
		cfg.NATS.URL = natsURL
	}
	metricsAddr := s.MetricsAddr
	if cfg.Metrics.Addr != "" {
		metricsAddr = cfg.Metrics.Addr
	}
	return cfg, metricsAddr, nil
}

// healthcheckAt is the healthcheck subcommand: it asks /readyz on the
// metrics address.
func healthcheckAt(metricsAddr string, stdout, stderr io.Writer) error {
	if metricsAddr == "off" {
		return errors.New("healthcheck asks /readyz on the metrics address, which is off: set OPENHUMAN_METRICS_ADDR to HOST:PORT")
	}
	if Healthcheck(metricsAddr, stdout, stderr) != 0 {
		return errUnhealthy
	}
	return nil
}

// serve connects to NATS, starts the service on it and serves until
// SIGINT or SIGTERM, then shuts down within the grace period.
func (s Service) serve(cfg config.Config, metricsAddr string, log *slog.Logger) error {
	if cfg.NATS.URL == "" {
		return errors.New(s.Name + " needs a NATS server: set OPENHUMAN_NATS_URL (or pass --nats); " +
			"to run everything in one process without NATS, run openhuman-core instead")
	}
	var extra []nats.Option
	if s.InboxPrefix != "" {
		extra = append(extra, nats.CustomInboxPrefix(s.InboxPrefix))
	}
	nc, err := bus.Connect(cfg.NATS, s.Name, log, extra...)
	if err != nil {
		return err
	}
	defer nc.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	telemetry.SetBuild(s.Name)
	ready := &readiness{}
	if metricsAddr != "off" {
		stopMetrics := serveMetrics(metricsAddr, ready, log)
		defer stopMetrics()
	}
	closer, err := s.Start(nc, cfg, log.With("service", strings.TrimPrefix(s.Name, "openhuman-")))
	if err != nil {
		return err
	}
	if err := bus.Refused(nc); err != nil {
		_ = closer.Close()
		return err
	}
	ready.serving(nc, closer)
	log.Info("serving", "nats", secrets.RedactURL(nc.ConnectedUrl()), "version", telemetry.Version)
	<-ctx.Done()
	ready.stop()
	return shutdown(nc, closer, cfg.Shutdown.Grace(), log)
}

// shutdown stops the service within grace and drains the connection.
func shutdown(nc *nats.Conn, closer io.Closer, grace time.Duration, log *slog.Logger) error {
	log.Info("shutting down: no new calls; those being handled may finish", "grace", grace)
	// Close leaves the queue group, so new calls go to other replicas, and
	// waits for the calls being handled to be answered; Drain then sends
	// those answers before the connection closes.
	closed := make(chan error, 1)
	go func() { closed <- closer.Close() }()
	var err error
	select {
	case err = <-closed:
	case <-time.After(grace):
		return fmt.Errorf("calls still running after the shutdown grace period of %s were cut off: "+
			"raise OPENHUMAN_SHUTDOWN_GRACE_SECONDS, and the orchestrator's stop timeout with it, if they must finish", grace)
	}
	if ferr := nc.Drain(); err == nil && !errors.Is(ferr, nats.ErrConnectionClosed) {
		err = ferr
	}
	return err
}

// errUnhealthy ends a healthcheck that failed; Healthcheck has said why.
var errUnhealthy = errors.New("unhealthy")

// WarnConfig logs a warning for each retired setting cfg still used
// (cfg.Deprecated) and for each OPENHUMAN_* variable in environ that no
// binary reads (config.UnknownEnv), so a misspelt one is not ignored in
// silence.
func WarnConfig(log *slog.Logger, cfg config.Config, environ []string) {
	for _, d := range cfg.Deprecated {
		log.Warn("deprecated setting: " + d)
	}
	for _, w := range config.UnknownEnv(environ) {
		log.Warn("unknown environment variable, ignored: "+w.Name+"; did you mean "+w.Closest+"?", "var", w.Name, "closest", w.Closest)
	}
}

// lookup is os.Getenv over environ: the first entry of a name wins.
func lookup(environ []string) func(string) string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			if _, dup := m[k]; !dup {
				m[k] = v
			}
		}
	}
	return func(k string) string { return m[k] }
}

// serveMetrics serves /metrics, /healthz (the process runs) and /readyz
// (ready: send it calls) on addr. A busy port is logged, not fatal: a
// second replica on one host still serves its tools.
func serveMetrics(addr string, ready http.Handler, log *slog.Logger) (stop func()) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Warn("not serving /metrics: set OPENHUMAN_METRICS_ADDR to a free HOST:PORT, or off", "addr", addr, "err", err)
		return func() {}
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", telemetry.MetricsHandler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	mux.Handle("GET /readyz", ready)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	log.Info("serving metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

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
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
)

// Service runs one service binary: start registers it on the bus and returns
// what to close on the way out. The binary serves /metrics on metricsAddr
// unless configuration says otherwise.
func Service(name, metricsAddr string, args []string, stderr io.Writer, getenv func(string) string,
	start func(nc *nats.Conn, cfg config.Config, log *slog.Logger) (io.Closer, error)) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	home := fs.String("home", "", "data and config directory (default $OPENHUMAN_HOME or ~/.openhuman)")
	natsURL := fs.String("nats", "", "NATS URL (default $OPENHUMAN_NATS_URL)")
	verbose := fs.Bool("verbose", false, "log debug output to stderr")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	cfg, err := config.Load(*home, getenv)
	if err != nil {
		return err
	}
	if *natsURL != "" {
		cfg.NATS.URL = *natsURL
	}
	log := telemetry.NewLogger(stderr, cfg.Log.Level, *verbose).With("bin", name)
	if cfg.NATS.URL == "" {
		return errors.New(name + " needs a NATS server: set OPENHUMAN_NATS_URL (or pass --nats); " +
			"to run everything in one process without NATS, run openhuman-core instead")
	}
	nc, err := bus.Connect(cfg.NATS.URL, name, log)
	if err != nil {
		return fmt.Errorf("connecting to NATS at %s: %w", cfg.NATS.URL, err)
	}
	defer nc.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	telemetry.SetBuild(name)
	if cfg.Metrics.Addr != "" {
		metricsAddr = cfg.Metrics.Addr
	}
	if metricsAddr != "off" {
		stopMetrics := serveMetrics(metricsAddr, log)
		defer stopMetrics()
	}
	closer, err := start(nc, cfg, log.With("service", strings.TrimPrefix(name, "openhuman-")))
	if err != nil {
		return err
	}
	log.Info("serving", "nats", nc.ConnectedUrlRedacted(), "version", telemetry.Version)
	<-ctx.Done()
	log.Info("shutting down")
	err = closer.Close()
	if ferr := nc.Drain(); err == nil && !errors.Is(ferr, nats.ErrConnectionClosed) {
		err = ferr
	}
	return err
}

// serveMetrics serves /metrics and /healthz on addr. A busy port is logged,
// not fatal: a second replica on one host still serves its tools.
func serveMetrics(addr string, log *slog.Logger) (stop func()) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Warn("not serving /metrics: set OPENHUMAN_METRICS_ADDR to a free HOST:PORT, or off", "addr", addr, "err", err)
		return func() {}
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", telemetry.MetricsHandler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	log.Info("serving metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}
}

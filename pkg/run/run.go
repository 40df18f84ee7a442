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
	"os"
	"os/signal"
	"syscall"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
)

// Service runs one service binary: start registers it on the bus and returns
// what to close on the way out.
func Service(name string, args []string, stderr io.Writer, getenv func(string) string,
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
	closer, err := start(nc, cfg, log)
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

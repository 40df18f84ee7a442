// Package server starts the agents service on a NATS connection; the
// openhuman-agents binary and the gateway's embedded mode both call it.
package server

import (
	"io"
	"log/slog"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
	"github.com/openhuman-go/openhuman-go/services/agents/natsbus"
)

// Start serves the agents service on nc.
func Start(nc *nats.Conn, _ config.Config, log *slog.Logger) (io.Closer, error) {
	svc, err := natsbus.Serve(nc, telemetry.Version, log)
	if err != nil {
		return nil, err
	}
	return closer(svc.Stop), nil
}

type closer func() error

func (c closer) Close() error { return c() }

// Command openhuman-memory serves the memory tools on NATS, for running the
// system as separate processes (set OPENHUMAN_NATS_URL).
package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/run"
	"github.com/openhuman-go/openhuman-go/services/memory/server"
)

func main() {
	err := run.Service("openhuman-memory", os.Args[1:], os.Stderr, os.Getenv,
		func(nc *nats.Conn, cfg config.Config, log *slog.Logger) (io.Closer, error) {
			return server.Start(nc, cfg, log)
		})
	if err != nil {
		fmt.Fprintln(os.Stderr, "openhuman-memory:", err)
		os.Exit(1)
	}
}

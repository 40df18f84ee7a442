// Package gatewaytest starts the real system for tests: an embedded NATS
// server with the memory, search and agents services in a temporary home, and a
// gateway over it. Nothing is faked.
package gatewaytest

import (
	"log/slog"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/embedded"
)

// Start returns a gateway over a fresh embedded system, configured by env
// (OPENHUMAN_* variables; nil for none). It stops when the test ends.
func Start(tb testing.TB, env map[string]string, opts gateway.Options) *gateway.Gateway {
	tb.Helper()
	return StartIn(tb, tb.TempDir(), env, opts)
}

// StartIn is Start with the home directory chosen by the test.
func StartIn(tb testing.TB, home string, env map[string]string, opts gateway.Options) *gateway.Gateway {
	tb.Helper()
	cfg, err := config.Load(home, func(k string) string { return withModelsOff(env)[k] })
	if err != nil {
		tb.Fatal(err)
	}
	sys, err := embedded.Start(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sys.Close() })
	// What the test sets wins over what the configuration says.
	def := sys.GatewayOptions(cfg)
	if opts.Expect == nil {
		opts.Expect = def.Expect
	}
	if opts.Policy == nil {
		opts.Policy = def.Policy
	}
	if opts.Audit == nil {
		opts.Audit = def.Audit
	}
	if opts.ToolTimeouts == nil {
		opts.ToolTimeouts = def.ToolTimeouts
	}
	if opts.Local == nil {
		opts.Local = def.Local
	}
	return gateway.New(bus.NewClient(sys.NC, sys.Signer), opts)
}

// withModelsOff is env with OPENHUMAN_MODELS=off unless it says whether
// models are on or points at a hub of its own: tests never reach the
// public model hub (docs/development.md).
func withModelsOff(env map[string]string) map[string]string {
	if _, set := env["OPENHUMAN_MODELS"]; set || env["OPENHUMAN_MODELS_HUB_URL"] != "" {
		return env
	}
	out := map[string]string{"OPENHUMAN_MODELS": "off"}
	for k, v := range env {
		out[k] = v
	}
	return out
}

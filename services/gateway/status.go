package gateway

import (
	"context"

	"github.com/openhuman-go/openhuman-go/services/gateway/diagnostics"
	"github.com/openhuman-go/openhuman-go/services/gateway/readiness"
	"github.com/openhuman-go/openhuman-go/services/gateway/registry"
)

// What the gateway says of the system, each put together by a package of
// its own over the same bus and health window as the calls.

// Readiness is what /readyz reports (package readiness).
func (g *Gateway) Readiness(ctx context.Context) readiness.Report { return g.ready.Check(ctx) }

// Registry lists every registry entry with health computed now
// (registry.Registry.List).
func (g *Gateway) Registry(ctx context.Context) []registry.Entry { return g.reg.List(ctx) }

// RegistryEntry returns one registry entry (registry.Registry.Entry).
func (g *Gateway) RegistryEntry(ctx context.Context, id string) (*registry.Entry, error) {
	return g.reg.Entry(ctx, id)
}

// Diagnostics is the registry's redacted inventory (package diagnostics).
func (g *Gateway) Diagnostics(ctx context.Context) diagnostics.Report { return g.diag.Report(ctx) }

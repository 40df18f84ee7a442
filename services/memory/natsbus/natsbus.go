// Package natsbus serves the memory domain on the NATS bus: one micro
// endpoint per memory tool, each checking its arguments against the tool's
// schema in pkg/contract before the domain sees them.
package natsbus

import (
	"context"
	"log/slog"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// Serve registers the memory service on nc.
func Serve(nc *nats.Conn, svc *memory.Service, version string, log *slog.Logger) (*bus.Service, error) {
	return bus.Serve(nc, bus.ServiceConfig{
		Name:        contract.ServiceMemory,
		Version:     version,
		Description: "OpenHuman memory: learn, list, fetch, recall, forget",
		Logger:      log,
		Endpoints: map[string]bus.Endpoint{
			"learn": bus.ForTool("memory.learn", func(ctx context.Context, p memory.LearnParams, cc contract.CallContext) (any, error) {
				return svc.Learn(ctx, p, cc)
			}),
			"list": bus.ForTool("memory.list", func(ctx context.Context, p memory.ListParams, _ contract.CallContext) (any, error) {
				return svc.List(ctx, p)
			}),
			"fetch": bus.ForTool("memory.fetch", func(ctx context.Context, p memory.FetchParams, _ contract.CallContext) (any, error) {
				return svc.Fetch(ctx, p)
			}),
			"recall": bus.ForTool("memory.recall", func(ctx context.Context, p memory.RecallParams, _ contract.CallContext) (any, error) {
				return svc.Recall(ctx, p)
			}),
			"forget": bus.ForTool("memory.forget", func(ctx context.Context, p memory.ForgetParams, _ contract.CallContext) (any, error) {
				return svc.Forget(ctx, p)
			}),
		},
	})
}

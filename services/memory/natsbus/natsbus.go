// Package natsbus serves the memory domain on the NATS bus: one micro
// endpoint per memory tool of the contract catalog (and the ingest and
// store health methods), each checking its arguments against the schema
// in pkg/contract before the domain sees them.
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
		Description: "OpenHuman memory: learn, list, fetch, recall, forget, the memory tree, ingestion",
		Logger:      log,
		Endpoints: []bus.Endpoint{
			bus.Handle(contract.MemoryLearn.Endpoint(), func(ctx context.Context, p memory.LearnParams, cc contract.CallContext) (any, error) {
				return svc.Learn(ctx, p, cc)
			}),
			bus.Handle(contract.MemoryList.Endpoint(), func(ctx context.Context, p memory.ListParams, _ contract.CallContext) (any, error) {
				return svc.List(ctx, p)
			}),
			bus.Handle(contract.MemoryFetch.Endpoint(), func(ctx context.Context, p memory.FetchParams, _ contract.CallContext) (any, error) {
				return svc.Fetch(ctx, p)
			}),
			bus.Handle(contract.MemoryRecall.Endpoint(), func(ctx context.Context, p memory.RecallParams, _ contract.CallContext) (any, error) {
				return svc.Recall(ctx, p)
			}),
			bus.Handle(contract.MemoryForget.Endpoint(), func(ctx context.Context, p memory.ForgetParams, _ contract.CallContext) (any, error) {
				return svc.Forget(ctx, p)
			}),
			bus.Handle(contract.TreeSearch.Endpoint(), func(ctx context.Context, p memory.TreeQuery, _ contract.CallContext) (any, error) {
				return svc.TreeSearch(ctx, p)
			}),
			bus.Handle(contract.TreeRecall.Endpoint(), func(ctx context.Context, p memory.TreeQuery, _ contract.CallContext) (any, error) {
				return svc.TreeRecall(ctx, p)
			}),
			bus.Handle(contract.TreeReadChunk.Endpoint(), func(ctx context.Context, p memory.ReadChunkParams, _ contract.CallContext) (any, error) {
				return svc.ReadChunk(ctx, p)
			}),
			bus.Handle(contract.TreeBrowse.Endpoint(), func(ctx context.Context, p memory.BrowseParams, _ contract.CallContext) (any, error) {
				return svc.Browse(ctx, p)
			}),
			bus.Handle(contract.TreeTopEntities.Endpoint(), func(ctx context.Context, p memory.TopEntitiesParams, _ contract.CallContext) (any, error) {
				return svc.TopEntities(ctx, p)
			}),
			bus.Handle(contract.TreeListSources.Endpoint(), func(ctx context.Context, p memory.ListSourcesParams, _ contract.CallContext) (any, error) {
				return svc.ListSources(ctx, p)
			}),
			bus.Handle(contract.IngestEndpoint, func(ctx context.Context, p memory.IngestParams, cc contract.CallContext) (any, error) {
				return svc.Ingest(ctx, p, cc)
			}),
			bus.Handle(contract.ConversationEndpoint, func(ctx context.Context, p memory.ConversationParams, cc contract.CallContext) (any, error) {
				return svc.IngestConversation(ctx, p, cc)
			}),
			bus.Handle(contract.StoreHealthEndpoint, func(context.Context, struct{}, contract.CallContext) (any, error) {
				return svc.StoreHealth(), nil
			}),
		},
	})
}

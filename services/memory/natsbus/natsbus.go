// Package natsbus serves the memory domain on the NATS bus: one micro
// endpoint per memory tool of the contract catalog (and the ingest and
// store health methods), each checking its arguments against the schema in
// pkg/contract before the domain sees them, and passing the domain the
// request's call context, whose workspaces the domain holds every call to.
// A read first waits for the replica to reach the call's min_seq.
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
func Serve(nc *nats.Conn, svc *memory.Service, version string, checks bus.Checks, log *slog.Logger) (*bus.Service, error) {
	return bus.Serve(nc, bus.ServiceConfig{
		Name:        contract.ServiceMemory,
		Checks:      checks,
		Version:     version,
		Description: "OpenHuman memory: learn, list, fetch, recall, forget, the memory tree, ingestion, export and import",
		Logger:      log,
		Endpoints: []bus.Endpoint{
			bus.Handle(contract.MemoryLearn.Endpoint(), func(ctx context.Context, p memory.LearnParams, cc contract.CallContext) (any, error) {
				return svc.Learn(ctx, p, cc)
			}),
			read(svc, contract.MemoryList.Endpoint(), func(ctx context.Context, p memory.ListParams, cc contract.CallContext) (any, error) {
				return svc.List(ctx, p, cc)
			}),
			read(svc, contract.MemoryFetch.Endpoint(), func(ctx context.Context, p memory.FetchParams, cc contract.CallContext) (any, error) {
				return svc.Fetch(ctx, p, cc)
			}),
			read(svc, contract.MemoryRecall.Endpoint(), func(ctx context.Context, p memory.RecallParams, cc contract.CallContext) (any, error) {
				return svc.Recall(ctx, p, cc)
			}),
			bus.Handle(contract.MemoryForget.Endpoint(), func(ctx context.Context, p memory.ForgetParams, cc contract.CallContext) (any, error) {
				return svc.Forget(ctx, p, cc)
			}),
			read(svc, contract.TreeSearch.Endpoint(), func(ctx context.Context, p memory.TreeQuery, cc contract.CallContext) (any, error) {
				return svc.TreeSearch(ctx, p, cc)
			}),
			read(svc, contract.TreeRecall.Endpoint(), func(ctx context.Context, p memory.TreeQuery, cc contract.CallContext) (any, error) {
				return svc.TreeRecall(ctx, p, cc)
			}),
			read(svc, contract.TreeReadChunk.Endpoint(), func(ctx context.Context, p memory.ReadChunkParams, cc contract.CallContext) (any, error) {
				return svc.ReadChunk(ctx, p, cc)
			}),
			read(svc, contract.TreeBrowse.Endpoint(), func(ctx context.Context, p memory.BrowseParams, cc contract.CallContext) (any, error) {
				return svc.Browse(ctx, p, cc)
			}),
			read(svc, contract.TreeTopEntities.Endpoint(), func(ctx context.Context, p memory.TopEntitiesParams, cc contract.CallContext) (any, error) {
				return svc.TopEntities(ctx, p, cc)
			}),
			read(svc, contract.TreeListSources.Endpoint(), func(ctx context.Context, p memory.ListSourcesParams, cc contract.CallContext) (any, error) {
				return svc.ListSources(ctx, p, cc)
			}),
			bus.Handle(contract.IngestEndpoint, func(ctx context.Context, p memory.IngestParams, cc contract.CallContext) (any, error) {
				return svc.Ingest(ctx, p, cc)
			}),
			bus.Handle(contract.ConversationEndpoint, func(ctx context.Context, p memory.ConversationParams, cc contract.CallContext) (any, error) {
				return svc.IngestConversation(ctx, p, cc)
			}),
			read(svc, contract.MemoryExport.Endpoint(), func(ctx context.Context, p memory.ExportParams, cc contract.CallContext) (any, error) {
				return svc.Export(ctx, p, cc)
			}),
			bus.Handle(contract.ImportEndpoint, func(ctx context.Context, p memory.ImportParams, cc contract.CallContext) (any, error) {
				return svc.Import(ctx, p, cc)
			}),
			bus.Handle(contract.StoreHealthEndpoint, func(ctx context.Context, _ struct{}, _ contract.CallContext) (any, error) {
				h := svc.StoreHealth()
				h.Embedding = svc.EmbeddingProgress(ctx)
				return h, nil
			}),
		},
	})
}

// read serves a read endpoint once this replica has applied the write
// stream up to the call's min_seq (at once when it has, or when memory is
// not replicated).
func read[P any](svc *memory.Service, ep contract.Endpoint, fn func(context.Context, P, contract.CallContext) (any, error)) bus.Endpoint {
	return bus.Handle(ep, func(ctx context.Context, p P, cc contract.CallContext) (any, error) {
		if err := svc.AwaitSeq(ctx, cc.MinSeq); err != nil {
			return nil, err
		}
		return fn(ctx, p, cc)
	})
}

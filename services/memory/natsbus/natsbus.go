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

var v1Recall, _ = contract.ToolFor(contract.ProfileV1, "memory.recall")

// Serve registers the memory service on nc.
func Serve(nc *nats.Conn, svc *memory.Service, version string, log *slog.Logger) (*bus.Service, error) {
	return bus.Serve(nc, bus.ServiceConfig{
		Name:        contract.ServiceMemory,
		Version:     version,
		Description: "OpenHuman memory: learn, list, fetch, recall, forget, the memory tree, ingestion",
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
			"tree_search": bus.ForTool("memory.search", func(ctx context.Context, p memory.TreeQuery, _ contract.CallContext) (any, error) {
				return svc.TreeSearch(ctx, p)
			}),
			"tree_recall": bus.Typed(v1Recall.Input, func(ctx context.Context, p memory.TreeQuery, _ contract.CallContext) (any, error) {
				return svc.TreeRecall(ctx, p)
			}),
			"tree_get_chunk": bus.ForTool("tree.read_chunk", func(ctx context.Context, p memory.ReadChunkParams, _ contract.CallContext) (any, error) {
				return svc.ReadChunk(ctx, p)
			}),
			"tree_list_chunks": bus.ForTool("tree.browse", func(ctx context.Context, p memory.BrowseParams, _ contract.CallContext) (any, error) {
				return svc.Browse(ctx, p)
			}),
			"tree_top_entities": bus.ForTool("tree.top_entities", func(ctx context.Context, p memory.TopEntitiesParams, _ contract.CallContext) (any, error) {
				return svc.TopEntities(ctx, p)
			}),
			"tree_list_sources": bus.ForTool("tree.list_sources", func(ctx context.Context, p memory.ListSourcesParams, _ contract.CallContext) (any, error) {
				return svc.ListSources(ctx, p)
			}),
			contract.MethodIngest: bus.Typed(contract.IngestInput(), func(ctx context.Context, p memory.IngestParams, cc contract.CallContext) (any, error) {
				return svc.Ingest(ctx, p, cc)
			}),
			contract.MethodConversation: bus.Typed(contract.ConversationInput(), func(ctx context.Context, p memory.ConversationParams, cc contract.CallContext) (any, error) {
				return svc.IngestConversation(ctx, p, cc)
			}),
		},
	})
}

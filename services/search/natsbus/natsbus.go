// Package natsbus serves the search domain on the NATS bus. Only the web
// tools the configuration can serve get an endpoint, so tools/list (which
// lists what is served) offers exactly those.
package natsbus

import (
	"context"
	"log/slog"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/search"
)

// Serve registers the search service on nc.
func Serve(nc *nats.Conn, svc *search.Service, version string, log *slog.Logger) (*bus.Service, error) {
	all := map[string]bus.Endpoint{
		"web_search": bus.ForTool("web_search", func(ctx context.Context, p search.SearchParams, _ contract.CallContext) (any, error) {
			return svc.WebSearch(ctx, p)
		}),
		"web_answer": bus.ForTool("web_answer", func(ctx context.Context, p search.AnswerParams, _ contract.CallContext) (any, error) {
			return svc.WebAnswer(ctx, p)
		}),
		"searxng_search": bus.ForTool("searxng_search", func(ctx context.Context, p search.SearchParams, _ contract.CallContext) (any, error) {
			return svc.SearXNGSearch(ctx, p)
		}),
	}
	endpoints := map[string]bus.Endpoint{}
	for _, tool := range svc.Tools() {
		endpoints[tool] = all[tool]
	}
	return bus.Serve(nc, bus.ServiceConfig{
		Name:        contract.ServiceSearch,
		Version:     version,
		Description: "OpenHuman search: web search, grounded answers and SearXNG, with fallback, cache and rate limits",
		Logger:      log,
		Endpoints:   endpoints,
	})
}

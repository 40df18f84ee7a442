// Package natsbus serves the search domain on the NATS bus. Only the web
// tools the configuration can serve get an endpoint, so tools/list (which
// lists what is served) offers exactly those; the providers' health is
// always served, for readiness and the registry.
package natsbus

import (
	"context"
	"log/slog"
	"slices"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/search"
)

// Serve registers the search service on nc.
func Serve(nc *nats.Conn, svc *search.Service, version string, checks bus.Checks, log *slog.Logger) (*bus.Service, error) {
	all := []bus.Endpoint{
		bus.Handle(contract.WebSearch.Endpoint(), func(ctx context.Context, p search.SearchParams, _ contract.CallContext) (any, error) {
			return svc.WebSearch(ctx, p)
		}),
		bus.Handle(contract.WebAnswer.Endpoint(), func(ctx context.Context, p search.AnswerParams, _ contract.CallContext) (any, error) {
			return svc.WebAnswer(ctx, p)
		}),
		bus.Handle(contract.SearXNGSearch.Endpoint(), func(ctx context.Context, p contract.SearXNGParams, _ contract.CallContext) (any, error) {
			return svc.SearXNGSearch(ctx, search.SearchParams{Query: p.Query, MaxResults: p.MaxResults})
		}),
	}
	var endpoints []bus.Endpoint
	for _, ep := range all {
		if slices.Contains(svc.Tools(), ep.Tool()) {
			endpoints = append(endpoints, ep)
		}
	}
	endpoints = append(endpoints, bus.Handle(contract.SearchHealthEndpoint, func(context.Context, struct{}, contract.CallContext) (any, error) {
		return svc.Health(), nil
	}))
	return bus.Serve(nc, bus.ServiceConfig{
		Name:        contract.ServiceSearch,
		Checks:      checks,
		Version:     version,
		Description: "OpenHuman search: web search, grounded answers and SearXNG, with fallback, cache and rate limits",
		Logger:      log,
		Endpoints:   endpoints,
	})
}

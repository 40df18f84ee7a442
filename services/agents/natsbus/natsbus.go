// Package natsbus serves the agents domain on the NATS bus: the sub-agent
// catalog, the core tool catalog and the prompt resources.
package natsbus

import (
	"context"
	"log/slog"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/agents"
)

type none struct{}

// Serve registers the agents service on nc.
func Serve(nc *nats.Conn, version string, log *slog.Logger) (*bus.Service, error) {
	client := bus.NewClient(nc)
	// liveTools asks the bus what is being served now, so the catalog never
	// offers a tool nobody can answer.
	liveTools := func(ctx context.Context) []agents.CoreTool {
		return agents.CoreTools(contract.LiveTools(contract.ProfileV2, client.Served(ctx, contract.Services()...)))
	}
	return bus.Serve(nc, bus.ServiceConfig{
		Name:        contract.ServiceAgents,
		Version:     version,
		Description: "OpenHuman agents: sub-agent definitions, prompts and the core tool catalog",
		Logger:      log,
		Endpoints: map[string]bus.Endpoint{
			"list_subagents": bus.ForTool("agent.list_subagents", func(context.Context, none, contract.CallContext) (any, error) {
				return map[string]any{"definitions": agents.Builtins()}, nil
			}),
			"list_tools": bus.ForTool("core.list_tools", func(ctx context.Context, _ none, _ contract.CallContext) (any, error) {
				return map[string]any{"tools": liveTools(ctx)}, nil
			}),
			"tool_instructions": bus.ForTool("core.tool_instructions", func(ctx context.Context, _ none, _ contract.CallContext) (any, error) {
				return map[string]any{"instructions": agents.ToolInstructions(liveTools(ctx))}, nil
			}),
			contract.MethodResourcesList: bus.Typed(contract.Object("", nil, nil), func(context.Context, none, contract.CallContext) (any, error) {
				return contract.ResourceList{Resources: agents.Resources()}, nil
			}),
			contract.MethodResourcesRead: bus.Typed(
				contract.Object("", []string{"uri"}, map[string]*contract.Schema{"uri": contract.String("Resource URI.").MaxLen(1024)}),
				func(_ context.Context, p contract.ResourceReadParams, _ contract.CallContext) (any, error) {
					return agents.ReadResource(p.URI)
				}),
		},
	})
}

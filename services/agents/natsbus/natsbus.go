// Package natsbus serves the agents domain on the NATS bus: the sub-agent
// catalog, running sub-agents, their approvals, the core tool catalog and
// the prompt resources. It also gives running sub-agents the rest of the
// system: the tools served on the bus, called the way the gateway calls them.
package natsbus

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/agents"
)

// Serve registers the agents service on nc; runner runs sub-agents and
// gate holds their approvals.
func Serve(nc *nats.Conn, runner *agents.Runner, gate *agents.Gate, version string, checks bus.Checks, log *slog.Logger) (*bus.Service, error) {
	tools := Tools(bus.NewClient(nc, nil)) // only asks what is served
	coreTools := func(ctx context.Context) []agents.CoreTool { return agents.CoreTools(tools.Live(ctx)) }
	return bus.Serve(nc, bus.ServiceConfig{
		Name:        contract.ServiceAgents,
		Checks:      checks,
		Version:     version,
		Description: "OpenHuman agents: sub-agent definitions and runs, approvals, prompts and the core tool catalog",
		Logger:      log,
		Endpoints: []bus.Endpoint{
			bus.Handle(contract.AgentListSubagents.Endpoint(), func(context.Context, contract.NoParams, contract.CallContext) (any, error) {
				return contract.AgentList{Definitions: agents.Builtins()}, nil
			}),
			bus.Handle(contract.AgentRunSubagent.Endpoint(), func(ctx context.Context, p agents.RunParams, cc contract.CallContext) (any, error) {
				return runner.Run(ctx, p, cc)
			}),
			bus.Handle(contract.RunResultEndpoint, func(ctx context.Context, p contract.RunResultParams, cc contract.CallContext) (any, error) {
				return runner.Collect(ctx, p.Call, cc)
			}),
			bus.Handle(contract.ApprovalList.Endpoint(), func(ctx context.Context, _ contract.NoParams, cc contract.CallContext) (any, error) {
				pending, err := gate.List(ctx, cc)
				if err != nil {
					return nil, err
				}
				decided, err := gate.Decided(ctx, cc)
				if err != nil {
					return nil, err
				}
				return contract.ApprovalQueue{Mode: gate.Mode(), Pending: pending, Decided: decided}, nil
			}),
			bus.Handle(contract.ApprovalDecide.Endpoint(), func(ctx context.Context, p contract.DecideParams, cc contract.CallContext) (any, error) {
				if err := gate.Decide(ctx, p.ID, agents.Decision{Approve: p.Approve, Reason: p.Reason, By: cc.Source, Token: cc.Token}, cc); err != nil {
					return nil, err
				}
				return contract.ApprovalDecided{ID: p.ID, Approved: p.Approve}, nil
			}),
			bus.Handle(contract.CoreListTools.Endpoint(), func(ctx context.Context, _ contract.NoParams, _ contract.CallContext) (any, error) {
				return contract.CoreToolList{Tools: coreTools(ctx)}, nil
			}),
			bus.Handle(contract.CoreToolInstructions.Endpoint(), func(ctx context.Context, _ contract.NoParams, _ contract.CallContext) (any, error) {
				return contract.CoreInstructions{Instructions: agents.ToolInstructions(coreTools(ctx))}, nil
			}),
			bus.Handle(contract.ResourcesListEndpoint, func(context.Context, contract.NoParams, contract.CallContext) (any, error) {
				return contract.ResourceList{Resources: agents.Resources()}, nil
			}),
			bus.Handle(contract.ResourcesReadEndpoint, func(_ context.Context, p contract.ResourceReadParams, _ contract.CallContext) (any, error) {
				return agents.ReadResource(p.URI)
			}),
		},
	})
}

// busTools are the tools served on the bus right now.
type busTools struct{ client *bus.Client }

// Tools gives sub-agents the tools served on the bus; the live set comes
// from discovery, so an agent is never offered a tool nobody answers.
func Tools(client *bus.Client) agents.Tools { return busTools{client} }

func (t busTools) Live(ctx context.Context) []contract.Tool {
	return contract.LiveTools(contract.ProfileV2, t.client.Served(ctx, contract.Services()...))
}

func (t busTools) Call(ctx context.Context, tool contract.Tool, params json.RawMessage, cc contract.CallContext) (json.RawMessage, error) {
	return t.client.CallTool(ctx, tool, params, cc)
}

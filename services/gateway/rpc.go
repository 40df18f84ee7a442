package gateway

import (
	"context"
	"encoding/json"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/auditlist"
	"github.com/openhuman-go/openhuman-go/services/gateway/diagnostics"
	"github.com/openhuman-go/openhuman-go/services/gateway/registry"
)

// CallRPC serves one JSON-RPC method: a tool's backing method goes through
// CallTool (same validation, same metrics); the gateway's own methods are
// checked against their schema and answered here.
func (g *Gateway) CallRPC(ctx context.Context, method string, params json.RawMessage, cc contract.CallContext) (_ any, err error) {
	if t, ok := registry.RPCTool(method); ok {
		return g.Dispatch(ctx, t, params, cc)
	}
	for _, m := range registry.Methods {
		if m.RPC != method {
			continue
		}
		done := g.opts.Observe(m.Name, cc.Transport)
		defer func() { done(err) }()
		args, err := contract.DecodeArguments(params)
		if err == nil {
			err = m.Input.Validate(args)
		}
		if err == nil {
			err = g.opts.Policy.AllowScope(m.Name, m.Scope(), cc)
		}
		if err != nil {
			return nil, err
		}
		switch m.Name {
		case "tool_registry.list":
			return map[string]any{"tools": g.Registry(ctx)}, nil
		case "tool_registry.get":
			id, _ := args["tool_id"].(string)
			return g.RegistryEntry(ctx, id)
		case auditlist.Method.Name:
			return auditlist.List(ctx, g.opts.Audit, args, cc)
		default:
			return g.Diagnostics(ctx).For(cc), nil
		}
	}
	return nil, contract.Errorf(contract.CodeNotFound, "unknown method %q", clipName(method)).With("method", clipName(method))
}

// Registry lists every registry entry with health computed now
// (registry.Registry.List).
func (g *Gateway) Registry(ctx context.Context) []registry.Entry { return g.reg.List(ctx) }

// RegistryEntry returns one registry entry (registry.Registry.Entry).
func (g *Gateway) RegistryEntry(ctx context.Context, id string) (*registry.Entry, error) {
	return g.reg.Entry(ctx, id)
}

// Diagnostics is the registry's redacted inventory (package diagnostics).
func (g *Gateway) Diagnostics(ctx context.Context) diagnostics.Report { return g.diag.Report(ctx) }

func clipName(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}

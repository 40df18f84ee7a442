package gateway

import (
	"context"
	"encoding/json"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/auditlist"
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

func clipName(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}

// Package gateway is the front of the system: it knows the tool catalog,
// checks every call's arguments against the contract schema, and dispatches
// valid calls to the service that owns the tool. Transports (MCP over stdio,
// the command line) sit on top of it; the bus sits below, behind caller.
package gateway

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// caller is the bus as the gateway uses it.
type caller interface {
	Call(ctx context.Context, service, method string, params any, cc contract.CallContext) (json.RawMessage, error)
	Served(ctx context.Context, services ...string) map[string]bool
	Ping(ctx context.Context, service string) error
}

// Options configure a Gateway. The zero value works.
type Options struct {
	// Timeout bounds each call (default 30 s).
	Timeout time.Duration
	// Observe, when set, is told of every call as it starts and returns the
	// func to call with its outcome: the hook for metrics.
	Observe func(tool, transport string) func(error)
	// Version is reported in the tool registry.
	Version string
	// Providers are the configured capability providers, reported by diagnostics.
	Providers []contract.CapabilityProvider
	// Expect names the services that must answer for the gateway to be
	// ready (default: memory and agents).
	Expect []string
}

// Gateway validates and dispatches tool calls.
type Gateway struct {
	bus    caller
	opts   Options
	recent *recent
}

// New returns a gateway over bus.
func New(bus caller, opts Options) *Gateway {
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.Expect == nil {
		opts.Expect = []string{contract.ServiceMemory, contract.ServiceAgents}
	}
	if opts.Observe == nil {
		opts.Observe = func(string, string) func(error) { return func(error) {} }
	}
	return &Gateway{bus: bus, opts: opts, recent: newRecent(time.Now)}
}

// Tools returns the tools that can be answered right now, in catalog order.
func (g *Gateway) Tools(ctx context.Context) []contract.Tool {
	return contract.LiveTools(g.bus.Served(ctx, contract.Services()...))
}

// CallTool checks args against the tool's schema and sends the call to its
// service. Bad arguments and unknown tools are INVALID_REQUEST and never
// leave the gateway.
//
// Every call is measured here, whatever transport it came by.
func (g *Gateway) CallTool(ctx context.Context, name string, args json.RawMessage, cc contract.CallContext) (_ json.RawMessage, err error) {
	tool, ok := contract.ToolByName(name)
	label := tool.Name // label values come from the catalog, never from raw input
	if !ok {
		label = "unknown"
	}
	done := g.opts.Observe(label, cc.Transport)
	defer func() {
		done(err)
		g.recent.record(label, err)
	}()
	if !ok {
		return nil, unknownTool(name)
	}
	obj, err := contract.DecodeArguments(args)
	if err == nil {
		err = tool.Input.Validate(obj)
	}
	if err != nil {
		return nil, contract.AsError(err).With("tool", name)
	}
	params, err := json.Marshal(obj)
	if err != nil {
		return nil, contract.Errorf(contract.CodeInvalidRequest, "arguments of %s cannot be re-encoded: %v", name, err)
	}
	ctx, cancel := context.WithTimeout(ctx, g.opts.Timeout)
	defer cancel()
	return g.bus.Call(ctx, tool.Service, tool.Method, json.RawMessage(params), cc)
}

func unknownTool(name string) error {
	names := make([]string, 0, len(contract.Tools()))
	for _, t := range contract.Tools() {
		names = append(names, t.Name)
	}
	sort.Strings(names)
	shown := name
	if len(shown) > 80 {
		shown = shown[:80] + "…"
	}
	return contract.Errorf(contract.CodeInvalidRequest, "unknown MCP tool `%s`; tools/list names the tools (%s)",
		shown, strings.Join(names, ", ")).With("name", shown)
}

// Resources lists the prompt resources, served by the agents service.
func (g *Gateway) Resources(ctx context.Context, cc contract.CallContext) ([]contract.Resource, error) {
	ctx, cancel := context.WithTimeout(ctx, g.opts.Timeout)
	defer cancel()
	raw, err := g.bus.Call(ctx, contract.ServiceAgents, contract.MethodResourcesList, struct{}{}, cc)
	if err != nil {
		return nil, err
	}
	var list contract.ResourceList
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, contract.Errorf(contract.CodeInternal, "the agents service sent a malformed resource list")
	}
	return list.Resources, nil
}

// ReadResource reads one resource by URI.
func (g *Gateway) ReadResource(ctx context.Context, uri string, cc contract.CallContext) (*contract.ResourceRead, error) {
	ctx, cancel := context.WithTimeout(ctx, g.opts.Timeout)
	defer cancel()
	raw, err := g.bus.Call(ctx, contract.ServiceAgents, contract.MethodResourcesRead, contract.ResourceReadParams{URI: uri}, cc)
	if err != nil {
		return nil, err
	}
	var res contract.ResourceRead
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, contract.Errorf(contract.CodeInternal, "the agents service sent a malformed resource")
	}
	return &res, nil
}

// Readiness pings every expected service. ok is false when any does not
// answer; status says, per service, "ok" or why not.
func (g *Gateway) Readiness(ctx context.Context) (ok bool, status map[string]string) {
	ok, status = true, map[string]string{}
	for _, svc := range g.opts.Expect {
		if err := g.bus.Ping(ctx, svc); err != nil {
			ok = false
			status[svc] = contract.ErrorMessage(err)
			continue
		}
		status[svc] = "ok"
	}
	return ok, status
}

// Instructions is the one-paragraph guide sent in initialize: which tool is
// for what, built from the tools that are live.
func Instructions(tools []contract.Tool) string {
	if len(tools) == 0 {
		return "OpenHuman Core is running, but none of its services answer yet, so it has no tools to offer; check its log."
	}
	uses := make([]string, len(tools))
	for i, t := range tools {
		uses[i] = t.Use
	}
	return "OpenHuman Core keeps a private, local memory for this user and tools around it. Use " +
		strings.Join(uses, "; ") + ". Cite memory with the [n] markers memory.recall returns, and store only lasting, non-secret facts."
}

// Package gateway is the front of the system: it knows the tool catalog and
// dispatches every tool call, whatever transport it came by, to the
// service that owns the tool, along one path: its span, its metrics, the
// scope and act gates, read-your-writes, the audit. What the gateway says
// around that path lives in packages of its own, which it puts together
// here: the tool registry (registry) and its diagnostics (diagnostics),
// readiness (readiness), approval questions put to the caller (approvals).
// Transports (mcpserver, httpapi, the console, the command line, whose
// bulk paths are package transfer) sit on top of it; the bus sits below,
// behind caller.
package gateway

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/editdistance"
	"github.com/openhuman-go/openhuman-go/pkg/tracing"
	"github.com/openhuman-go/openhuman-go/services/gateway/approvals"
	"github.com/openhuman-go/openhuman-go/services/gateway/diagnostics"
	"github.com/openhuman-go/openhuman-go/services/gateway/healthwindow"
	"github.com/openhuman-go/openhuman-go/services/gateway/readiness"
	"github.com/openhuman-go/openhuman-go/services/gateway/registry"
	"github.com/openhuman-go/openhuman-go/services/gateway/writemark"
)

// caller is the bus as the gateway uses it.
type caller interface {
	Call(ctx context.Context, service, method string, params any, cc contract.CallContext) (json.RawMessage, error)
	CallEndpoint(ctx context.Context, ep contract.Endpoint, params any, cc contract.CallContext) (json.RawMessage, error)
	CallTool(ctx context.Context, tool contract.Tool, params json.RawMessage, cc contract.CallContext) (json.RawMessage, error)
	Served(ctx context.Context, services ...string) map[string]bool
	Ping(ctx context.Context, service string) error
}

// Options configure a Gateway. The zero value works.
type Options struct {
	// Timeout bounds each call (default contract.DefaultCallTimeout).
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
	// Profile is the MCP surface served: contract.ProfileV2 (the default)
	// or contract.ProfileV1, the older read-only memory tree.
	Profile string
	// ToolTimeouts bound the named tools instead of Timeout (running a
	// sub-agent takes longer than a memory read).
	ToolTimeouts map[string]time.Duration
	// Policy is the act gate (default: full autonomy, no budget).
	Policy *Policy
	// Audit records every call of a tool that writes (nil: none).
	Audit *audit.Recorder
	// StateKey seals the requestState of MCP 2026-07-28 questions
	// (package approvals); every gateway replica that may take a retry needs
	// the same one. Nil: a key of this gateway alone.
	StateKey []byte
	// Local are the readiness checks of the services running in this
	// process (the embedded default), by service name. A service whose
	// handlers are stuck still answers pings, so its own word counts.
	Local map[string]func() error
}

// Gateway validates and dispatches tool calls.
type Gateway struct {
	bus    caller
	opts   Options
	recent *healthwindow.Window
	seq    writemark.Mark
	ready  *readiness.Checker
	reg    *registry.Registry
	diag   *diagnostics.Reporter
	asker  *approvals.Asker
}

// New returns a gateway over bus.
func New(bus caller, opts Options) *Gateway {
	if opts.Timeout <= 0 {
		opts.Timeout = contract.DefaultCallTimeout
	}
	if opts.Profile == "" {
		opts.Profile = contract.ProfileV2
	}
	if opts.Expect == nil {
		opts.Expect = []string{contract.ServiceMemory, contract.ServiceAgents}
	}
	if opts.Policy == nil {
		opts.Policy = NewPolicy(AutonomyFull, 0)
	}
	if opts.Observe == nil {
		opts.Observe = func(string, string) func(error) { return func(error) {} }
	}
	recent := healthwindow.New(time.Now)
	reg := registry.New(bus, recent, opts.Profile, opts.Version)
	g := &Gateway{bus: bus, opts: opts, recent: recent, reg: reg,
		ready: readiness.New(bus, opts.Expect, opts.Local),
		diag:  diagnostics.New(reg, opts.Policy, bus, opts.Audit, opts.Providers)}
	g.asker = approvals.New(g, bus, opts.Policy, approvals.Options{Profile: opts.Profile, Timeout: g.toolTimeout, StateKey: opts.StateKey})
	return g
}

// Tools returns the tools of the gateway's profile that can be answered
// right now, in catalog order.
func (g *Gateway) Tools(ctx context.Context) []contract.Tool {
	return contract.LiveTools(g.opts.Profile, g.bus.Served(ctx, contract.Services()...))
}

// Profile is the MCP surface this gateway serves.
func (g *Gateway) Profile() string { return g.opts.Profile }

// CallTool checks args against the tool's schema and sends the call to its
// service. Bad arguments and unknown tools are INVALID_REQUEST and never
// leave the gateway.
//
// Every call is measured here, whatever transport it came by.
func (g *Gateway) CallTool(ctx context.Context, name string, args json.RawMessage, cc contract.CallContext) (json.RawMessage, error) {
	tool, ok := contract.ToolFor(g.opts.Profile, name)
	if !ok {
		// Counted under "unknown": label values come from the catalog,
		// never from raw input.
		return g.measure("unknown", "unknown", cc, func() (json.RawMessage, error) { return nil, g.unknownTool(ctx, name) })
	}
	return g.Dispatch(ctx, tool, args, cc)
}

// CallToolAsking is CallTool for a caller that can be asked, such as an
// MCP session that declared elicitation (approvals.Asker.CallToolAsking).
func (g *Gateway) CallToolAsking(ctx context.Context, name string, args json.RawMessage, cc contract.CallContext, ask approvals.Ask) (json.RawMessage, error) {
	return g.asker.CallToolAsking(ctx, name, args, cc, ask)
}

// CallToolRoundTrip is CallTool for a client that answers questions by
// retrying the call (approvals.Asker.CallToolRoundTrip).
func (g *Gateway) CallToolRoundTrip(ctx context.Context, name string, args json.RawMessage, cc contract.CallContext, r approvals.Retry) (json.RawMessage, *approvals.Question, error) {
	return g.asker.CallToolRoundTrip(ctx, name, args, cc, r)
}

// Dispatch calls tool, of any profile (JSON-RPC serves the backing
// methods of all of them), as CallTool does once it has found the tool.
func (g *Gateway) Dispatch(ctx context.Context, tool contract.Tool, args json.RawMessage, cc contract.CallContext) (raw json.RawMessage, err error) {
	ctx, span := startCall(ctx, tool.Name, cc)
	defer func() { endSpan(span, err) }()
	return g.measure(tool.Name, tool.Subject(), cc, func() (json.RawMessage, error) { return g.call(ctx, tool, args, cc) })
}

// measure runs one call under the metrics hook (label: the tool's name)
// and the health window (key: its subject, since v1's memory.recall and
// v2's are different tools of one name).
func (g *Gateway) measure(label, key string, cc contract.CallContext, fn func() (json.RawMessage, error)) (json.RawMessage, error) {
	done := g.opts.Observe(label, cc.Transport)
	raw, err := fn()
	done(err)
	g.recent.Record(key, err)
	return raw, err
}

// call passes the scope and act gates, sends the call, and audits it when the tool
// changes state (Audited). The arguments travel as they came: the service serving the tool
// checks them against its schema (it is the boundary every NATS client
// reaches). Only a tool that acts has them checked here first, by the same
// code, so that a bad call neither spends the action budget nor reaches the
// audit without a summary.
func (g *Gateway) call(ctx context.Context, tool contract.Tool, args json.RawMessage, cc contract.CallContext) (raw json.RawMessage, err error) {
	audited := Audited(tool) && g.opts.Audit != nil
	var reply *writemark.Reply // read once, for the mark and the audit
	if tool.Acts || audited {
		var obj map[string]any
		obj, err = tool.CheckArguments(args)
		if obj == nil {
			// Refused arguments are audited for what they held too: a
			// learn refused for its kind still had its text.
			_ = json.Unmarshal(args, &obj)
		}
		if audited {
			defer func() {
				if err == nil && reply == nil {
					reply = writemark.ReadReply(raw)
				}
				g.audit(ctx, tool, obj, cc, reply, err)
			}()
		}
		if err != nil {
			return nil, err
		}
	}
	if err = g.gate(ctx, tool, cc); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, g.toolTimeout(tool))
	defer cancel()
	raw, reply, err = g.seq.Around(tool.Service, tool.Writes, cc, func(cc contract.CallContext) (json.RawMessage, error) {
		return g.bus.CallTool(ctx, tool, args, cc)
	})
	return raw, err
}

// toolTimeout bounds a call of tool.
func (g *Gateway) toolTimeout(tool contract.Tool) time.Duration {
	if d, ok := g.opts.ToolTimeouts[tool.Name]; ok {
		return d
	}
	return g.opts.Timeout
}

// gate passes the scope gate, then, for a tool that acts, the act gate.
func (g *Gateway) gate(ctx context.Context, tool contract.Tool, cc contract.CallContext) (err error) {
	_, span := tracing.Tracer().Start(ctx, "policy")
	defer func() { endSpan(span, err) }()
	// The scope gate first: a call the token may not make spends no budget.
	if err = g.opts.Policy.AllowScope(tool.Name, tool.Scope(), cc); err != nil {
		return err
	}
	if tool.Acts {
		return g.opts.Policy.Allow(tool.Name, cc.Source)
	}
	return nil
}

// Audited reports whether every call of tool leaves an audit row: those
// that change state (they need scope act): learning, forgetting, running
// a sub-agent and deciding an approval. Reads are counted, not audited.
func Audited(tool contract.Tool) bool { return tool.Scope() == contract.ScopeAct }

// audit records one call of a tool that changes state.
func (g *Gateway) audit(ctx context.Context, tool contract.Tool, args map[string]any, cc contract.CallContext, reply *writemark.Reply, err error) {
	row := audit.Row{Client: cc.Source, Token: cc.Token, ToolName: tool.Name, ArgsSummary: tool.Summarize(args), Success: err == nil}
	if err != nil {
		row.ErrorMessage = contract.ErrorMessage(err)
	} else {
		row.ResultingID = reply.ID
		if reply.Forgotten >= 0 {
			row.ArgsSummary["forgotten"] = reply.Forgotten
		}
	}
	g.opts.Audit.Record(ctx, row)
}

// unknownTool names the tools tools/list offers right now: not those of
// another profile, nor a web tool with no provider to serve it.
func (g *Gateway) unknownTool(ctx context.Context, name string) error {
	var names []string
	for _, t := range g.Tools(ctx) {
		names = append(names, t.Name)
	}
	sort.Strings(names)
	shown := name
	if len(shown) > 80 {
		shown = shown[:80] + "…"
	}
	if len(names) == 0 {
		return contract.Errorf(contract.CodeInvalidRequest, "unknown MCP tool `%s`; no tool is offered right now (no service answers)", shown).With("name", shown)
	}
	guess := suggestTool(name, names)
	if guess != "" {
		guess = "did you mean " + guess + "? "
	}
	return contract.Errorf(contract.CodeInvalidRequest, "unknown MCP tool `%s`; %stools/list names the tools (%s)",
		shown, guess, strings.Join(names, ", ")).With("name", shown)
}

// suggestTool is the live tool name meant: the tool behind a JSON-RPC
// method of that name (openhuman.memory_recall is memory.recall), else one
// a typing mistake or two away (memory.recal); "" when none is near.
func suggestTool(asked string, live []string) string {
	if len(asked) > 100 {
		return ""
	}
	for _, t := range contract.Tools() {
		if t.RPC != "" && strings.EqualFold(t.RPC, asked) && slices.Contains(live, t.Name) {
			return t.Name
		}
	}
	near := editdistance.Nearest(strings.ToLower(asked), live, 1)
	if len(near) == 1 && editdistance.Within(strings.ToLower(asked), near[0], 2) {
		return near[0]
	}
	return ""
}

// Resources lists the prompt resources, served by the agents service.
func (g *Gateway) Resources(ctx context.Context, cc contract.CallContext) ([]contract.Resource, error) {
	if err := g.opts.Policy.AllowScope("resources/list", contract.ScopeRead, cc); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, g.opts.Timeout)
	defer cancel()
	raw, err := g.bus.CallEndpoint(ctx, contract.ResourcesListEndpoint, struct{}{}, cc)
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
	if err := g.opts.Policy.AllowScope("resources/read", contract.ScopeRead, cc); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, g.opts.Timeout)
	defer cancel()
	raw, err := g.bus.CallEndpoint(ctx, contract.ResourcesReadEndpoint, contract.ResourceReadParams{URI: uri}, cc)
	if err != nil {
		return nil, err
	}
	var res contract.ResourceRead
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, contract.Errorf(contract.CodeInternal, "the agents service sent a malformed resource")
	}
	return &res, nil
}

// SendWrite sends params to ep, an endpoint of a service that writes
// (memory's ingest and import), within the call timeout, and keeps the
// write's sequence so that later reads see it (writemark). It is the
// command line's path (package transfer), not a tool's: it passes no gate.
func (g *Gateway) SendWrite(ctx context.Context, ep contract.Endpoint, params any, cc contract.CallContext) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, g.opts.Timeout)
	defer cancel()
	raw, _, err := g.seq.Around(ep.Service, true, cc, func(cc contract.CallContext) (json.RawMessage, error) {
		return g.bus.CallEndpoint(ctx, ep, params, cc)
	})
	return raw, err
}

// Instructions is the one-paragraph guide sent in initialize: which tool is
// for what, built from the tools that are live.
func Instructions(tools []contract.Tool) string {
	if len(tools) == 0 {
		return "OpenHuman Core is running, but none of its services answer yet, so it has no tools to offer; check its log."
	}
	uses := make([]string, len(tools))
	has := map[string]bool{}
	for i, t := range tools {
		uses[i] = t.Use
		has[t.Name] = true
	}
	var b strings.Builder
	b.WriteString("OpenHuman Core keeps a private, local memory for this user and tools around it. Use ")
	b.WriteString(strings.Join(uses, "; ") + ".")
	if t, ok := contract.ToolFor(contract.ProfileV2, "memory.recall"); ok && has[t.Name] && has["memory.fetch"] {
		b.WriteString(" Cite memory with the [n] markers memory.recall returns.")
	}
	if has["memory.learn"] {
		b.WriteString(" Store only lasting, non-secret facts.")
	}
	return b.String()
}

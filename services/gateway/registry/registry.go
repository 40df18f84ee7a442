// Package registry is the tool registry: every MCP tool and JSON-RPC
// method with its id, route, schemas, the sub-agents allowed to call it and
// its live health, and the gateway's own methods that read it. Dashboards
// and the console read what the system offers from it, so it answers from
// what the services say now, not from configuration.
package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/editdistance"
	"github.com/openhuman-go/openhuman-go/services/gateway/auditlist"
	"github.com/openhuman-go/openhuman-go/services/gateway/healthwindow"
	"github.com/openhuman-go/openhuman-go/services/gateway/servicehealth"
)

// Registry transports: how an entry is called.
const (
	TransportMCP = "mcp_stdio" // tools/call over MCP (stdio or Streamable HTTP)
	TransportRPC = "json_rpc"  // POST /rpc
)

// Health values of a registry entry.
const (
	HealthAvailable   = "available"
	HealthDegraded    = "degraded"
	HealthUnavailable = "unavailable"
)

// degradedAbove is the share of recent calls that failed by the server's
// fault beyond which a tool is degraded (given at least degradedMinCalls).
const (
	degradedAbove    = 0.2
	degradedMinCalls = 3
)

// Entry is one tool registry entry, for MCP tools and JSON-RPC methods alike.
type Entry struct {
	ToolID        string           `json:"tool_id"`
	Name          string           `json:"name"`
	Title         string           `json:"title"`
	Description   string           `json:"description"`
	Version       string           `json:"version"`
	Transport     string           `json:"transport"`
	Route         string           `json:"route"`
	InputSchema   *contract.Schema `json:"input_schema"`
	OutputSchema  *contract.Schema `json:"output_schema"`
	AllowedAgents []string         `json:"allowed_agents"`
	Tags          []string         `json:"tags"`
	WriteCapable  bool             `json:"write_capable"`
	Enabled       bool             `json:"enabled"`
	Health        string           `json:"health"`
	HealthDetail  HealthDetail     `json:"health_detail"`
}

// HealthDetail is what Health was computed from.
type HealthDetail struct {
	Service        string `json:"service"`
	ServiceAnswers bool   `json:"service_answers"`
	RecentCalls    int    `json:"recent_calls"`
	RecentFailures int    `json:"recent_failures"`
	Window         string `json:"window"`
	// Reason says why an entry is not available: what to configure for a
	// disabled one, which providers are skipped for a web tool.
	Reason string `json:"reason,omitempty"`
}

var noArgs = contract.Object("", nil, nil)

// readsOnly marks the gateway's own methods: the registry is read, never
// changed, through them, so a read-only token may call them.
var readsOnly = contract.Annotations{ReadOnlyHint: new(true)}

// Methods are served by the gateway itself: the registry is about
// the system, so no other service can answer it.
var Methods = []contract.Tool{
	{
		Name: "tool_registry.list", RPC: "openhuman.tool_registry_list", Title: "List the tool registry",
		Description: "Every MCP tool and JSON-RPC method with its id, route, schemas, allowed agents, tags, enabled state and live health.",
		Input:       noArgs,
		Output:      &contract.Schema{Type: "object", Required: []string{"tools"}, Properties: map[string]*contract.Schema{"tools": {Type: "array", Items: &contract.Schema{Type: "object"}}}},
		Annotations: readsOnly,
	},
	{
		Name: "tool_registry.get", RPC: "openhuman.tool_registry_get", Title: "Get one registry entry",
		Description: "One registry entry by tool_id, for example memory.recall or rpc.memory_recall.",
		Input:       contract.Object("", []string{"tool_id"}, map[string]*contract.Schema{"tool_id": contract.String("The entry's tool_id.").MaxLen(200)}),
		Output:      &contract.Schema{Type: "object", Required: []string{"tool_id", "health"}},
		Annotations: readsOnly,
	},
	{
		Name: "tool_registry.diagnostics", RPC: "openhuman.tool_registry_diagnostics", Title: "Registry diagnostics",
		Description: "Redacted inventory: counts, write-capable surfaces, policy posture, audit status, recent denials and capability providers.",
		Input:       noArgs,
		Output:      &contract.Schema{Type: "object", Required: []string{"counts", "write_surfaces", "capability_providers"}},
		Annotations: readsOnly,
	},
	auditlist.Method,
}

// RPCMethods lists every JSON-RPC method: the backing method of each tool
// that has one, then the gateway's own.
func RPCMethods() []string {
	var out []string
	for _, t := range contract.Tools() {
		if t.RPC != "" {
			out = append(out, t.RPC)
		}
	}
	for _, m := range Methods {
		out = append(out, m.RPC)
	}
	return out
}

// rpcMethods indexes RPCMethods, for the lookup every /rpc call makes.
var rpcMethods = func() map[string]bool {
	m := map[string]bool{}
	for _, name := range RPCMethods() {
		m[name] = true
	}
	return m
}()

// rpcTools indexes the tools behind backing JSON-RPC methods.
var rpcTools = func() map[string]contract.Tool {
	m := map[string]contract.Tool{}
	for _, t := range contract.Tools() {
		if t.RPC != "" {
			m[t.RPC] = t
		}
	}
	return m
}()

// RPCTool is the tool behind a backing JSON-RPC method.
func RPCTool(method string) (contract.Tool, bool) {
	t, ok := rpcTools[method]
	return t, ok
}

// IsRPCMethod reports whether method is served over JSON-RPC.
func IsRPCMethod(method string) bool { return rpcMethods[method] }

// SuggestRPCMethods names up to three JSON-RPC methods for an unknown
// one: the method behind a tool of that name first (memory.recall is
// openhuman.memory_recall), then those sharing the most words with what was
// asked (web_search: openhuman.tools_web_search, then the other searches),
// nearest in typing mistakes first.
func SuggestRPCMethods(method string) []string {
	const n = 3
	if len(method) > 100 {
		method = method[:100] // no method name is near that long
	}
	var out []string
	if t, ok := contract.ToolByName(method); ok && t.RPC != "" {
		out = append(out, t.RPC)
	}
	asked := strings.TrimPrefix(strings.ToLower(method), rpcPrefix)
	names := make([]string, 0, len(rpcMethods))
	for _, m := range RPCMethods() {
		names = append(names, strings.TrimPrefix(m, rpcPrefix))
	}
	ranked := editdistance.Nearest(asked, names, len(names))
	askedWords := methodWords(asked)
	shared := func(name string) int {
		k := 0
		for _, w := range methodWords(name) {
			if slices.Contains(askedWords, w) {
				k++
			}
		}
		return k
	}
	slices.SortStableFunc(ranked, func(a, b string) int { return shared(b) - shared(a) })
	for _, name := range ranked {
		if len(out) == n {
			break
		}
		if m := rpcPrefix + name; !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// methodWords splits a method's name into its words: memory_tree_search,
// memory.tree/search and memory-tree-search all hold memory, tree, search.
func methodWords(name string) []string {
	return strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '.' || r == '/' || r == '-' || r == ' ' })
}

// rpcPrefix begins every JSON-RPC method's name.
const rpcPrefix = "openhuman."

// bus is what the registry asks of the services: whether they answer,
// which tools they serve, their sub-agents and search's health.
type bus interface {
	Call(ctx context.Context, service, method string, params any, cc contract.CallContext) (json.RawMessage, error)
	CallEndpoint(ctx context.Context, ep contract.Endpoint, params any, cc contract.CallContext) (json.RawMessage, error)
	Served(ctx context.Context, services ...string) map[string]bool
	Ping(ctx context.Context, service string) error
}

// counter counts each tool's recent calls and failures, by subject
// (healthwindow.Window).
type counter interface {
	Counts(key string) (calls, failures int)
}

// Registry computes the entries of one gateway.
type Registry struct {
	bus     bus
	recent  counter
	profile string
	version string
}

// New returns the registry of a gateway serving profile, whose calls
// recent counts; version is reported in every entry.
func New(b bus, recent counter, profile, version string) *Registry {
	return &Registry{bus: b, recent: recent, profile: profile, version: version}
}

// rpcToolID is the registry id of a JSON-RPC method: "rpc." and the method
// without its namespace, so it never collides with an MCP tool's id.
func rpcToolID(method string) string {
	return "rpc." + strings.TrimPrefix(method, contract.SubjectPrefix+".")
}

// List lists every entry with health computed now. Its MCP entries
// are the tools of this gateway's profile only, the same ones tools/list
// offers (a web tool with no provider to serve it is listed with enabled
// false, since configuration can change that here). A tool of the other
// profile is absent rather than listed as disabled: a dashboard counts and
// shows enabled=false as "switched off on this surface", but no setting
// short of serving another profile enables it, and the name may belong to
// a different tool there (v1's memory.recall is not v2's). Its backing
// JSON-RPC method is listed, since /rpc serves every profile's methods.
func (r *Registry) List(ctx context.Context) []Entry {
	entries, _ := r.Entries(ctx)
	return entries
}

// Entries builds the entries, and returns the search providers' health
// it asked for them (nil when unknown), which diagnostics reports too.
func (r *Registry) Entries(ctx context.Context) ([]Entry, *contract.SearchHealth) {
	answers := map[string]bool{"gateway": true}
	for _, svc := range contract.Services() {
		answers[svc] = r.bus.Ping(ctx, svc) == nil
	}
	agents := r.allowedAgents(ctx)
	served := r.bus.Served(ctx, contract.Services()...)
	var providers *contract.SearchHealth
	if answers[contract.ServiceSearch] {
		providers, _ = servicehealth.Search(ctx, r.bus) // nil: health unknown, judged by calls alone
	}
	b := entryBuilder{reg: r, answers: answers, served: served, agents: agents, providers: providers}
	var out []Entry
	for _, t := range contract.ToolsFor(r.profile) {
		out = append(out, b.entry(t, t.Name, TransportMCP, "tools/call "+t.Name, t.Service))
	}
	for _, t := range contract.Tools() {
		if t.RPC != "" {
			out = append(out, b.entry(t, rpcToolID(t.RPC), TransportRPC, "POST /rpc "+t.RPC, t.Service))
		}
	}
	b.served = nil
	for _, m := range Methods {
		out = append(out, b.entry(m, rpcToolID(m.RPC), TransportRPC, "POST /rpc "+m.RPC, "gateway"))
	}
	return out, providers
}

// Entry returns one entry. Besides its tool_id it answers to the
// JSON-RPC method name and its dotted forms (openhuman.tools_web_search:
// tools.web_search; openhuman.tool_registry_list: tool_registry.list) when no
// MCP tool has that id.
func (r *Registry) Entry(ctx context.Context, id string) (*Entry, error) {
	entries := r.List(ctx)
	for _, e := range entries {
		if e.ToolID == id {
			return &e, nil
		}
	}
	for _, e := range entries {
		if e.Transport != TransportRPC {
			continue
		}
		method := strings.TrimPrefix(e.Route, "POST /rpc ")
		if id == method || dottedForm(strings.TrimPrefix(method, contract.SubjectPrefix+"."), id) {
			return &e, nil
		}
	}
	return nil, contract.Errorf(contract.CodeNotFound, "tool not found in registry: %s", clipName(id)).With("tool_id", clipName(id))
}

// entryBuilder holds what every entry's health is computed from.
type entryBuilder struct {
	reg     *Registry
	answers map[string]bool
	// served is nil for the gateway's own methods.
	served    map[string]bool
	agents    map[string][]string
	providers *contract.SearchHealth // nil when unknown
}

// entry describes t. For a tool, a service that answers but serves no
// endpoint for it has it disabled by configuration (a web tool without a
// provider); a web tool is degraded when some of its providers are
// skipped or failing, unavailable when all are skipped.
func (b entryBuilder) entry(t contract.Tool, id, transport, route, service string) Entry {
	calls, failures := b.reg.recent.Counts(t.Subject())
	enabled := b.served == nil || !b.answers[service] || b.served[t.Subject()]
	health, reason := HealthAvailable, ""
	switch {
	case !b.answers[service]:
		health, reason = HealthUnavailable, "the "+service+" service does not answer"
	case !enabled:
		health, reason = HealthUnavailable, "not enabled here: "+t.Needs
	case calls >= degradedMinCalls && float64(failures) > degradedAbove*float64(calls):
		health, reason = HealthDegraded, fmt.Sprintf("%d of its %d calls in the last %s failed", failures, calls, healthwindow.Span)
	}
	if enabled && b.answers[service] && service == contract.ServiceSearch && b.providers != nil {
		if word, detail := servicehealth.SearchStatus(toolProviders(b.providers, t.Name)); word == servicehealth.SearchUnavailable {
			health, reason = HealthUnavailable, detail
		} else if word == servicehealth.SearchDegraded {
			if health == HealthAvailable {
				health = HealthDegraded
			}
			reason = detail
		}
	}
	// Write-capable is what a read-only token may not call: a tool that
	// acts, or one not marked read-only (approval.decide lets a sub-agent's
	// waiting call run without passing the act gate itself).
	writes := t.Scope() == contract.ScopeAct
	tags := []string{service, "read"}
	if writes {
		tags[1] = "write"
	}
	allowed := b.agents[t.Name]
	if allowed == nil {
		allowed = []string{}
	}
	return Entry{
		ToolID: id, Name: t.Name, Title: t.Title, Description: t.Description, Version: b.reg.version,
		Transport: transport, Route: route, InputSchema: t.Input, OutputSchema: t.Output,
		AllowedAgents: allowed, Tags: tags, WriteCapable: writes, Enabled: enabled, Health: health,
		HealthDetail: HealthDetail{Service: service, ServiceAnswers: b.answers[service], RecentCalls: calls,
			RecentFailures: failures, Window: healthwindow.Span.String(), Reason: reason},
	}
}

// toolProviders are the providers a web tool may use, as the search
// service reports them.
func toolProviders(h *contract.SearchHealth, tool string) []contract.SearchProvider {
	var out []contract.SearchProvider
	for _, name := range h.Tools[tool] {
		for _, p := range h.Providers {
			if p.Name == name {
				out = append(out, p)
			}
		}
	}
	return out
}

// allowedAgents maps tool names to the sub-agents whose definitions name
// them, as the agents service reports them now.
func (r *Registry) allowedAgents(ctx context.Context) map[string][]string {
	out := map[string][]string{}
	raw, err := r.bus.Call(ctx, contract.ServiceAgents, "list_subagents", struct{}{}, contract.CallContext{Source: "gateway"})
	if err != nil {
		return out
	}
	var defs struct {
		Definitions []struct {
			ID    string   `json:"id"`
			Tools []string `json:"tools"`
		} `json:"definitions"`
	}
	if json.Unmarshal(raw, &defs) != nil {
		return out
	}
	for _, d := range defs.Definitions {
		for _, t := range d.Tools {
			out[t] = append(out[t], d.ID)
		}
	}
	for _, ids := range out {
		sort.Strings(ids)
	}
	return out
}

// dottedForm reports whether id is short with one of its underscores made a dot.
func dottedForm(short, id string) bool {
	for i := 0; i < len(short); i++ {
		if short[i] == '_' && id == short[:i]+"."+short[i+1:] {
			return true
		}
	}
	return false
}

func clipName(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}

// Package diagnostics answers openhuman.tool_registry_diagnostics: the
// registry's redacted inventory (counts, write surfaces, policy posture,
// audit status, recent denials, capability providers, each service's
// health). It is the operator's view, so it also says what a caller
// limited to workspaces may see of it.
package diagnostics

import (
	"context"
	"encoding/json"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/policy"
	"github.com/openhuman-go/openhuman-go/services/gateway/registry"
	"github.com/openhuman-go/openhuman-go/services/gateway/servicehealth"
)

// Report is the registry's redacted inventory.
type Report struct {
	Counts              Counts          `json:"counts"`
	WriteSurfaces       []WriteSurface  `json:"write_surfaces"`
	Policy              map[string]any  `json:"policy"`
	WriteAudit          map[string]any  `json:"write_audit"`
	RecentDenials       []policy.Denial `json:"recent_denials"`
	CapabilityProviders ProviderSummary `json:"capability_providers"`
	// Services is each service's health: available, degraded, or
	// unavailable when it does not answer or serves none of its tools.
	Services map[string]string `json:"services"`
	// ServiceDetail says why a service is not available.
	ServiceDetail map[string]string `json:"service_detail"`
	// SearchProviders are the search providers and their states, when the
	// search service answers.
	SearchProviders []contract.SearchProvider `json:"search_providers"`
	// MemoryEmbedding is how far the memory service has come in giving
	// every item a vector of its active model, when it answers.
	MemoryEmbedding *contract.EmbeddingProgress `json:"memory_embedding,omitempty"`
}

// Counts are registry totals.
type Counts struct {
	TotalTools    int `json:"total_tools"`
	EnabledTools  int `json:"enabled_tools"`
	MCPStdioTools int `json:"mcp_stdio_tools"`
	JSONRPCTools  int `json:"json_rpc_tools"`
}

// WriteSurface is a route by which something can be written.
type WriteSurface struct {
	ToolID    string `json:"tool_id"`
	Transport string `json:"transport"`
	Route     string `json:"route"`
}

// ProviderSummary counts capability providers without exposing their sources.
type ProviderSummary struct {
	Total          int      `json:"total"`
	Enabled        int      `json:"enabled"`
	Trusted        int      `json:"trusted"`
	TrustedEnabled int      `json:"trusted_enabled"`
	EligibleIDs    []string `json:"eligible_ids"`
	// RegistryErrors is empty: invalid or duplicate entries are refused when
	// the configuration loads, so a running gateway never holds one.
	RegistryErrors []string `json:"registry_errors"`
}

// entries are the registry's entries and the search providers' health
// they were judged by (registry.Registry).
type entries interface {
	Entries(ctx context.Context) ([]registry.Entry, *contract.SearchHealth)
}

// posture is the gates' settings and recent refusals (policy.Policy).
type posture interface {
	Posture() (map[string]any, []policy.Denial)
}

// endpointCaller is the bus, for memory's store health.
type endpointCaller interface {
	CallEndpoint(ctx context.Context, ep contract.Endpoint, params any, cc contract.CallContext) (json.RawMessage, error)
}

// Reporter puts the inventory together.
type Reporter struct {
	reg       entries
	gates     posture
	bus       endpointCaller
	audit     *audit.Recorder
	providers []contract.CapabilityProvider
}

// New returns a reporter over the registry reg, the gates, the bus, the
// audit (nil: none) and the configured capability providers.
func New(reg entries, gates posture, b endpointCaller, rec *audit.Recorder, providers []contract.CapabilityProvider) *Reporter {
	return &Reporter{reg: reg, gates: gates, bus: b, audit: rec, providers: providers}
}

// Report reports what the registry holds and how it is governed.
func (r *Reporter) Report(ctx context.Context) Report {
	entries, health := r.reg.Entries(ctx)
	settings, denials := r.gates.Posture()
	d := Report{
		WriteSurfaces: []WriteSurface{},
		Policy:        settings,
		WriteAudit:    r.auditStatus(ctx),
		RecentDenials: denials,
		Services:      map[string]string{},
		ServiceDetail: map[string]string{},
	}
	for _, e := range entries {
		d.Counts.TotalTools++
		if e.Enabled {
			d.Counts.EnabledTools++
		}
		if e.Transport == registry.TransportMCP {
			d.Counts.MCPStdioTools++
		} else {
			d.Counts.JSONRPCTools++
		}
		if e.WriteCapable {
			d.WriteSurfaces = append(d.WriteSurfaces, WriteSurface{ToolID: e.ToolID, Transport: e.Transport, Route: e.Route})
		}
	}
	d.serviceHealth(entries)
	d.SearchProviders = []contract.SearchProvider{}
	if health != nil {
		d.SearchProviders = health.Providers
	}
	p := ProviderSummary{EligibleIDs: []string{}, RegistryErrors: []string{}}
	for _, c := range r.providers {
		p.Total++
		if c.Enabled {
			p.Enabled++
		}
		if c.TrustState == "trusted" {
			p.Trusted++
		}
		if c.Eligible() {
			p.TrustedEnabled++
			p.EligibleIDs = append(p.EligibleIDs, c.ID)
		}
	}
	d.CapabilityProviders = p
	var h contract.StoreHealth
	if servicehealth.Ask(ctx, r.bus, contract.StoreHealthEndpoint, &h) == nil {
		d.MemoryEmbedding = h.Embedding
	}
	return d
}

// For is what the caller cc may read of d. The diagnostics are the
// operator's; a caller limited to workspaces is not one, and is shown no
// other token, nobody else's denials, and nothing of the audit that tells
// when others wrote or where the home is.
func (d Report) For(cc contract.CallContext) Report {
	if !cc.Scoped() {
		return d
	}
	settings := make(map[string]any, len(d.Policy))
	for k, v := range d.Policy {
		settings[k] = v
	}
	settings["http_auth"] = map[string]any{"enabled": true, "token": cc.Token, "workspaces": cc.Workspaces,
		"detail": "this token's calls see only its workspaces; the other tokens are the operator's to list"}
	d.Policy = settings
	own := []policy.Denial{}
	for _, den := range d.RecentDenials {
		if den.Token == cc.Token {
			own = append(own, den)
		}
	}
	d.RecentDenials = own
	d.WriteAudit = map[string]any{"enabled": d.WriteAudit["enabled"]}
	return d
}

// serviceHealth sums up each service from its entries: unavailable when
// it does not answer or has no enabled entry, or every enabled entry is
// unavailable; degraded when some enabled entry is not available.
func (d *Report) serviceHealth(entries []registry.Entry) {
	type tally struct {
		answers                bool
		enabled, down, notOK   int
		reason, disabledReason string
	}
	by := map[string]*tally{}
	for _, e := range entries {
		svc := e.HealthDetail.Service
		if svc == "gateway" {
			continue
		}
		t := by[svc]
		if t == nil {
			t = &tally{answers: e.HealthDetail.ServiceAnswers}
			by[svc] = t
		}
		if !e.Enabled {
			if t.disabledReason == "" {
				t.disabledReason = e.HealthDetail.Reason
			}
			continue
		}
		t.enabled++
		switch e.Health {
		case registry.HealthUnavailable:
			t.down++
			t.notOK++
		case registry.HealthDegraded:
			t.notOK++
		}
		if e.Health != registry.HealthAvailable && t.reason == "" && e.HealthDetail.Reason != "" {
			t.reason = e.Transport + " " + e.ToolID + ": " + e.HealthDetail.Reason
		}
	}
	for svc, t := range by {
		switch {
		case !t.answers:
			d.Services[svc], d.ServiceDetail[svc] = registry.HealthUnavailable, "the "+svc+" service does not answer its NATS ping"
		case t.enabled == 0:
			d.Services[svc], d.ServiceDetail[svc] = registry.HealthUnavailable, "the "+svc+" service answers but serves none of its tools, "+t.disabledReason
		case t.down == t.enabled:
			d.Services[svc], d.ServiceDetail[svc] = registry.HealthUnavailable, t.reason
		case t.notOK > 0:
			d.Services[svc], d.ServiceDetail[svc] = registry.HealthDegraded, t.reason
		default:
			d.Services[svc] = registry.HealthAvailable
		}
	}
}

// auditStatus says whether and where writes are audited, and how the last
// ones went.
func (r *Reporter) auditStatus(ctx context.Context) map[string]any {
	if r.audit == nil {
		return map[string]any{"enabled": false, "detail": "no audit log is configured: writes are counted in openhuman_tool_calls_total only"}
	}
	l := r.audit.Log()
	status := map[string]any{"enabled": true, "backend": l.Backend(), "audited_tools": []string{"memory.learn", "memory.forget", "agent.run_subagent", "approval.decide", "sub-agents' writes"}}
	if rows, err := l.Recent(ctx, 1, false); err != nil {
		status["error"] = err.Error()
	} else if len(rows) == 1 {
		status["last_row_ms"] = rows[0].TimestampMS
	}
	return status
}

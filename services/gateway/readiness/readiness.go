// Package readiness answers /readyz: whether the services the gateway
// expects answer, whether memory's store can be trusted, and how search's
// providers fare. An orchestrator restarts or withholds traffic by its
// verdict, so it tells "not ready" (restarting may help) from "degraded"
// (it would not).
package readiness

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/servicehealth"
)

// Words of a Report's Status.
const (
	OK       = "ready"     // every expected service answers and search works as configured
	Degraded = "degraded"  // every expected service answers, but search providers are skipped or failing
	NotReady = "not ready" // an expected service does not answer, or memory's store is damaged or failing
)

// Report is what /readyz reports.
type Report struct {
	// Ready is false when an expected service does not answer its ping,
	// or memory's store is damaged, failing or cannot be opened.
	// Search providers that fail do not make the gateway unready: memory,
	// agents and the registry still work, and restarting the gateway would
	// not bring a provider back. They make Status "degraded" instead.
	Ready  bool   `json:"-"`
	Status string `json:"status"`
	// Services says per service "ok" or why not; search's entry sums up
	// its providers: "ok", "untested: …", "degraded: …" or "unavailable: …".
	Services map[string]string `json:"services"`
	// SearchProviders are the search service's providers (configured or
	// not) with their states, when the search service answers.
	SearchProviders []contract.SearchProvider `json:"search_providers,omitempty"`
	// MemoryStore is the memory service's store health, when it answers,
	// with how far embedding has come (memory_store.embedding).
	MemoryStore *contract.StoreHealth `json:"memory_store,omitempty"`
	// MemoryEmbedding repeats memory_store.embedding's detail: how many
	// items wait for a vector of the active model. A backlog leaves the
	// gateway ready (those items are found by their words meanwhile); an
	// embedder that fails makes Status "degraded".
	MemoryEmbedding string `json:"memory_embedding,omitempty"`
	// MemoryModel repeats memory_store.embedding.configured_model's
	// detail: how the model memory runs itself fares. Until it is ready
	// Status is "degraded", not "not ready": memory embeds with its
	// offline embedder meanwhile.
	MemoryModel string `json:"memory_model,omitempty"`
	// MemoryReranker repeats memory_store.embedding.reranker's detail:
	// the cross-encoder's state, when models are on.
	MemoryReranker string `json:"memory_reranker,omitempty"`
}

// bus is what readiness asks: pings and health endpoints.
type bus interface {
	Ping(ctx context.Context, service string) error
	CallEndpoint(ctx context.Context, ep contract.Endpoint, params any, cc contract.CallContext) (json.RawMessage, error)
}

// Checker judges the gateway's readiness.
type Checker struct {
	bus    bus
	expect []string
	local  map[string]func() error
}

// New returns a checker that expects the services named by expect to
// answer, and believes local, the readiness checks of the services
// running in this process (by service name), over their pings.
func New(b bus, expect []string, local map[string]func() error) *Checker {
	return &Checker{bus: b, expect: expect, local: local}
}

// Check pings every expected service, asks the memory service whether
// its store can be trusted and the search service how its providers fare.
func (c *Checker) Check(ctx context.Context) Report {
	r := Report{Ready: true, Status: OK, Services: map[string]string{}}
	expectSearch := false
	for _, svc := range c.expect {
		if svc == contract.ServiceSearch {
			expectSearch = true
		}
		if err := c.bus.Ping(ctx, svc); err != nil {
			r.Ready, r.Status = false, NotReady
			r.Services[svc] = contract.ErrorMessage(err)
			continue
		}
		r.Services[svc] = "ok"
	}
	c.localReadiness(&r)
	if r.Services[contract.ServiceMemory] == "ok" {
		c.memoryReadiness(ctx, &r)
	}
	if expectSearch && r.Services[contract.ServiceSearch] != "ok" {
		return r
	}
	if !expectSearch && c.bus.Ping(ctx, contract.ServiceSearch) != nil {
		return r // no provider is configured and no search service runs
	}
	h, err := servicehealth.Search(ctx, c.bus)
	if err != nil {
		r.Services[contract.ServiceSearch] = "degraded: its providers' health is unknown: " + contract.ErrorMessage(err)
		if r.Ready {
			r.Status = Degraded
		}
		return r
	}
	r.SearchProviders = h.Providers
	word, detail := servicehealth.SearchStatus(h.Providers)
	switch word {
	case "":
		// No provider configured: search is not expected; say so.
		r.Services[contract.ServiceSearch] = "not configured: no search provider is configured, so the web tools are not offered"
		return r
	case servicehealth.SearchOK:
		r.Services[contract.ServiceSearch] = "ok"
		return r
	case servicehealth.SearchUntested:
		r.Services[contract.ServiceSearch] = "untested: " + detail
		return r
	}
	r.Services[contract.ServiceSearch] = word + ": " + detail
	if r.Ready {
		r.Status = Degraded
	}
	return r
}

// localReadiness folds in what the services running in this process say
// of themselves: one whose handlers are stuck makes the gateway not ready.
func (c *Checker) localReadiness(r *Report) {
	for _, name := range slices.Sorted(maps.Keys(c.local)) {
		if err := c.local[name](); err != nil {
			r.Ready, r.Status = false, NotReady
			r.Services[name] = "failing: " + err.Error()
		}
	}
}

// memoryReadiness folds the memory store's health into r: a memory
// service that answers pings while its SQLite file is damaged fails every
// call that reaches the damage, so the gateway is not ready.
func (c *Checker) memoryReadiness(ctx context.Context, r *Report) {
	var h contract.StoreHealth
	err := servicehealth.Ask(ctx, c.bus, contract.StoreHealthEndpoint, &h)
	switch {
	case err != nil && contract.AsError(err).Data["reason"] == contract.ReasonNoResponders:
		return // a memory service from before store health: its ping is all there is
	case err != nil:
		r.Services[contract.ServiceMemory] = "degraded: its store's health is unknown: " + contract.ErrorMessage(err)
		if r.Ready {
			r.Status = Degraded
		}
		return
	}
	r.MemoryStore = &h
	if !h.OK {
		r.Ready, r.Status = false, NotReady
		r.Services[contract.ServiceMemory] = h.Detail
		return
	}
	if e := h.Embedding; e != nil {
		r.MemoryEmbedding = e.Detail
		if e.Failing() && r.Ready {
			r.Status = Degraded
			r.Services[contract.ServiceMemory] = "degraded: " + e.Detail
		}
		// A model that is not ready degrades; the embedder's detail is
		// the one services.memory says when both are not.
		for _, m := range []struct {
			state  *contract.ModelState
			detail *string
		}{{e.Reranker, &r.MemoryReranker}, {e.Configured, &r.MemoryModel}} {
			if m.state == nil {
				continue
			}
			*m.detail = m.state.Detail
			if !m.state.Ready() && r.Ready && !e.Failing() {
				r.Status = Degraded
				r.Services[contract.ServiceMemory] = "degraded: " + m.state.Detail
			}
		}
	}
}

package gateway

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Readiness words: Status of a Readiness.
const (
	ReadyOK       = "ready"     // every expected service answers and search works as configured
	ReadyDegraded = "degraded"  // every expected service answers, but search providers are skipped or failing
	ReadyNot      = "not ready" // an expected service does not answer, or memory's store is damaged or failing
)

// Readiness is what /readyz reports.
type Readiness struct {
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

// healthTimeout bounds a service's health answer.
const healthTimeout = 2 * time.Second

// Readiness pings every expected service, asks the memory service whether
// its store can be trusted and the search service how its providers fare.
func (g *Gateway) Readiness(ctx context.Context) Readiness {
	r := Readiness{Ready: true, Status: ReadyOK, Services: map[string]string{}}
	expectSearch := false
	for _, svc := range g.opts.Expect {
		if svc == contract.ServiceSearch {
			expectSearch = true
		}
		if err := g.bus.Ping(ctx, svc); err != nil {
			r.Ready, r.Status = false, ReadyNot
			r.Services[svc] = contract.ErrorMessage(err)
			continue
		}
		r.Services[svc] = "ok"
	}
	g.localReadiness(&r)
	if r.Services[contract.ServiceMemory] == "ok" {
		g.memoryReadiness(ctx, &r)
	}
	if expectSearch && r.Services[contract.ServiceSearch] != "ok" {
		return r
	}
	if !expectSearch && g.bus.Ping(ctx, contract.ServiceSearch) != nil {
		return r // no provider is configured and no search service runs
	}
	h, err := g.searchHealth(ctx)
	if err != nil {
		r.Services[contract.ServiceSearch] = "degraded: its providers' health is unknown: " + contract.ErrorMessage(err)
		if r.Ready {
			r.Status = ReadyDegraded
		}
		return r
	}
	r.SearchProviders = h.Providers
	word, detail := searchStatus(h.Providers)
	switch word {
	case "":
		// No provider configured: search is not expected; say so.
		r.Services[contract.ServiceSearch] = "not configured: no search provider is configured, so the web tools are not offered"
		return r
	case "ok":
		r.Services[contract.ServiceSearch] = "ok"
		return r
	case "untested":
		r.Services[contract.ServiceSearch] = "untested: " + detail
		return r
	}
	r.Services[contract.ServiceSearch] = word + ": " + detail
	if r.Ready {
		r.Status = ReadyDegraded
	}
	return r
}

// localReadiness folds in what the services running in this process say
// of themselves: one whose handlers are stuck makes the gateway not ready.
func (g *Gateway) localReadiness(r *Readiness) {
	for _, name := range slices.Sorted(maps.Keys(g.opts.Local)) {
		if err := g.opts.Local[name](); err != nil {
			r.Ready, r.Status = false, ReadyNot
			r.Services[name] = "failing: " + err.Error()
		}
	}
}

// memoryReadiness folds the memory store's health into r: a memory
// service that answers pings while its SQLite file is damaged fails every
// call that reaches the damage, so the gateway is not ready.
func (g *Gateway) memoryReadiness(ctx context.Context, r *Readiness) {
	var h contract.StoreHealth
	err := g.health(ctx, contract.StoreHealthEndpoint, &h)
	switch {
	case err != nil && contract.AsError(err).Data["reason"] == contract.ReasonNoResponders:
		return // a memory service from before store health: its ping is all there is
	case err != nil:
		r.Services[contract.ServiceMemory] = "degraded: its store's health is unknown: " + contract.ErrorMessage(err)
		if r.Ready {
			r.Status = ReadyDegraded
		}
		return
	}
	r.MemoryStore = &h
	if !h.OK {
		r.Ready, r.Status = false, ReadyNot
		r.Services[contract.ServiceMemory] = h.Detail
		return
	}
	if e := h.Embedding; e != nil {
		r.MemoryEmbedding = e.Detail
		if e.Failing() && r.Ready {
			r.Status = ReadyDegraded
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
				r.Status = ReadyDegraded
				r.Services[contract.ServiceMemory] = "degraded: " + m.state.Detail
			}
		}
	}
}

// searchHealth asks the search service for its providers' health.
func (g *Gateway) searchHealth(ctx context.Context) (*contract.SearchHealth, error) {
	var h contract.SearchHealth
	if err := g.health(ctx, contract.SearchHealthEndpoint, &h); err != nil {
		return nil, err
	}
	return &h, nil
}

// health calls a service's health endpoint into out.
func (g *Gateway) health(ctx context.Context, ep contract.Endpoint, out any) error {
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	raw, err := g.bus.CallEndpoint(ctx, ep, struct{}{}, contract.CallContext{Source: "gateway"})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return contract.Errorf(contract.CodeInternal, "the %s service sent a malformed answer to %s", ep.Service, ep.Method)
	}
	return nil
}

// searchStatus sums up the configured providers: "" when none is
// configured; "ok" when every one answered its last call; "untested" when
// none failed and none answered yet; "degraded" when some are
// skipped or failed their last call; "unavailable" when every one is
// skipped. detail names each provider that is not "ok", and why.
func searchStatus(providers []contract.SearchProvider) (word, detail string) {
	var configured, skipped, failing, untested, answered int
	var why []string
	for _, p := range providers {
		if p.State == contract.ProviderNotConfigured {
			continue
		}
		configured++
		switch {
		case !p.Usable():
			skipped++
			why = append(why, p.Name+": "+p.Detail)
		case p.Reachable == nil:
			untested++
			why = append(why, p.Name+": "+p.Detail)
		case !*p.Reachable:
			failing++
			why = append(why, p.Name+": "+p.Detail)
		default:
			answered++
		}
	}
	switch {
	case configured == 0:
		return "", ""
	case skipped == configured:
		return "unavailable", "every configured provider is skipped: " + strings.Join(why, "; ")
	case skipped > 0 || failing > 0:
		return "degraded", strings.Join(why, "; ")
	case untested > 0 && answered == 0:
		return "untested", strings.Join(why, "; ")
	}
	return "ok", ""
}

package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Readiness words: Status of a Readiness.
const (
	ReadyOK       = "ready"     // every expected service answers and search works as configured
	ReadyDegraded = "degraded"  // every expected service answers, but search providers are skipped or failing
	ReadyNot      = "not ready" // an expected service does not answer
)

// Readiness is what /readyz reports.
type Readiness struct {
	// Ready is false when an expected service does not answer its ping.
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
}

// searchHealthTimeout bounds the search service's health answer.
const searchHealthTimeout = 2 * time.Second

// Readiness pings every expected service and asks the search service how
// its providers fare.
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

// searchHealth asks the search service for its providers' health.
func (g *Gateway) searchHealth(ctx context.Context) (*contract.SearchHealth, error) {
	ctx, cancel := context.WithTimeout(ctx, searchHealthTimeout)
	defer cancel()
	raw, err := g.bus.Call(ctx, contract.ServiceSearch, contract.MethodSearchHealth, struct{}{}, contract.CallContext{Source: "gateway"})
	if err != nil {
		return nil, err
	}
	var h contract.SearchHealth
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, contract.Errorf(contract.CodeInternal, "the search service sent a malformed provider health")
	}
	return &h, nil
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

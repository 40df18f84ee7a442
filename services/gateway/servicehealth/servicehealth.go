// Package servicehealth asks the services how they fare, through their
// health endpoints, and sums up the search providers' states in a word.
// Readiness, the registry and diagnostics all judge by these answers, so
// they ask the same way and use the same words.
package servicehealth

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Timeout bounds a service's health answer.
const Timeout = 2 * time.Second

// endpointCaller is the bus as a health question needs it.
type endpointCaller interface {
	CallEndpoint(ctx context.Context, ep contract.Endpoint, params any, cc contract.CallContext) (json.RawMessage, error)
}

// Ask calls a service's health endpoint ep into out, within Timeout.
func Ask(ctx context.Context, b endpointCaller, ep contract.Endpoint, out any) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	raw, err := b.CallEndpoint(ctx, ep, struct{}{}, contract.CallContext{Source: "gateway"})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return contract.Errorf(contract.CodeInternal, "the %s service sent a malformed answer to %s", ep.Service, ep.Method)
	}
	return nil
}

// Search asks the search service for its providers' health.
func Search(ctx context.Context, b endpointCaller) (*contract.SearchHealth, error) {
	var h contract.SearchHealth
	if err := Ask(ctx, b, contract.SearchHealthEndpoint, &h); err != nil {
		return nil, err
	}
	return &h, nil
}

// Words of SearchStatus.
const (
	SearchOK          = "ok"
	SearchUntested    = "untested"
	SearchDegraded    = "degraded"
	SearchUnavailable = "unavailable"
)

// SearchStatus sums up the configured providers: "" when none is
// configured; "ok" when every one answered its last call; "untested" when
// none failed and none answered yet; "degraded" when some are
// skipped or failed their last call; "unavailable" when every one is
// skipped. detail names each provider that is not "ok", and why.
func SearchStatus(providers []contract.SearchProvider) (word, detail string) {
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
		return SearchUnavailable, "every configured provider is skipped: " + strings.Join(why, "; ")
	case skipped > 0 || failing > 0:
		return SearchDegraded, strings.Join(why, "; ")
	case untested > 0 && answered == 0:
		return SearchUntested, strings.Join(why, "; ")
	}
	return SearchOK, ""
}

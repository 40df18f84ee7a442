package search

import (
	"fmt"
	"sync"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Provider states, as metrics and diagnostics show them.
const (
	StateClosed   = contract.ProviderClosed   // healthy: calls go through
	StateHalfOpen = contract.ProviderHalfOpen // after a cooldown: one probe call decides
	StateOpen     = contract.ProviderOpen     // too many recent failures: skipped until the cooldown ends
	StateDisabled = contract.ProviderDisabled // a rejected key or an exhausted quota: skipped until its re-probe time
)

// health tracks each provider: a circuit breaker for failures that may
// pass, and a longer stop for those that will not pass by themselves (a
// rejected key, SearXNG without JSON, a used-up quota). Either way, once its
// time is up one probe call decides, so a provider whose owner fixed it
// comes back without a restart.
type health struct {
	mu        sync.Mutex
	threshold int
	cooldown  time.Duration
	auth      time.Duration // how long an Auth failure disables a provider
	quota     time.Duration // how long a Quota failure does, without Retry-After
	now       clock
	byName    map[string]*providerHealth
}

type providerHealth struct {
	failures  int
	openUntil time.Time
	probing   bool
	disabled  string    // why, while disabled
	until     time.Time // when a disabled provider is probed
	called    bool      // called since start
	lastOK    bool      // its last call answered
	lastErr   string
}

func newHealth(threshold int, cooldown, auth, quota time.Duration, now clock) *health {
	return &health{threshold: threshold, cooldown: cooldown, auth: auth, quota: quota, now: now, byName: map[string]*providerHealth{}}
}

func (h *health) get(name string) *providerHealth {
	p, ok := h.byName[name]
	if !ok {
		p = &providerHealth{}
		h.byName[name] = p
	}
	return p
}

// allow reports whether name may be called now; if not, the state that
// stops it and a sentence saying why and when it is tried again.
func (h *health) allow(name string) (ok bool, state, why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.get(name)
	now := h.now()
	switch {
	case p.disabled != "" && now.Before(p.until):
		return false, StateDisabled, "disabled: " + p.disabled + "; " + nextTry(now, p.until)
	case p.disabled != "" && p.probing:
		return false, StateDisabled, "disabled: " + p.disabled + "; a probe call is under way"
	case p.disabled != "":
	case p.failures < h.threshold:
		return true, StateClosed, ""
	case now.Before(p.openUntil):
		return false, StateOpen, fmt.Sprintf("circuit open after %d failures in a row; %s", p.failures, nextTry(now, p.openUntil))
	case p.probing:
		return false, StateHalfOpen, "circuit half-open: a probe call is under way"
	}
	p.probing = true // this call is the probe
	return true, StateHalfOpen, ""
}

// nextTry says when a skipped provider is tried again.
func nextTry(now, at time.Time) string {
	return fmt.Sprintf("next try in %s (at %s)", at.Sub(now).Round(time.Second), at.UTC().Format(time.RFC3339))
}

// release gives back a probe slot that allow granted but was not used.
func (h *health) release(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.get(name).probing = false
}

// success records an answer; it returns true when it ended a disabling.
func (h *health) success(name string) (recovered bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.get(name)
	recovered = p.disabled != ""
	*p = providerHealth{called: true, lastOK: true}
	return recovered
}

// failure records err. For a failure that disables the provider it returns
// when the provider is tried again; else the zero time.
func (h *health) failure(name string, err *ProviderError) (disabledUntil time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.get(name)
	p.called, p.lastOK, p.lastErr, p.probing = true, false, err.Message, false
	if err.Kind == Auth || err.Kind == Quota {
		wait := h.auth
		if err.Kind == Quota {
			wait = h.quota
		}
		if err.RetryAfter > 0 {
			wait = err.RetryAfter
		}
		p.disabled, p.until = err.Message, h.now().Add(wait)
		return p.until
	}
	p.disabled = "" // a probe of a disabled provider failed otherwise: the breaker decides now
	p.failures++
	if p.failures >= h.threshold {
		p.openUntil = h.now().Add(h.cooldown)
	}
	return time.Time{}
}

// state is name's state for metrics and diagnostics.
func (h *health) state(name string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stateLocked(h.get(name), h.now())
}

func (h *health) stateLocked(p *providerHealth, now time.Time) string {
	switch {
	case p.disabled != "":
		return StateDisabled
	case p.failures < h.threshold:
		return StateClosed
	case now.Before(p.openUntil):
		return StateOpen
	}
	return StateHalfOpen
}

// report describes name's health for readiness and the registry.
func (h *health) report(name string) contract.SearchProvider {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, now := h.get(name), h.now()
	r := contract.SearchProvider{Name: name, State: h.stateLocked(p, now)}
	if p.called {
		ok := p.lastOK
		r.Reachable = &ok
	}
	switch r.State {
	case StateDisabled:
		r.RetryAt = p.until.UTC().Format(time.RFC3339)
		if now.Before(p.until) {
			r.Detail = "disabled: " + p.disabled + "; " + nextTry(now, p.until)
		} else {
			r.Detail = "disabled: " + p.disabled + "; the next call is a probe"
		}
	case StateOpen:
		r.RetryAt = p.openUntil.UTC().Format(time.RFC3339)
		r.Detail = fmt.Sprintf("circuit open after %d failures in a row (last: %s); %s", p.failures, p.lastErr, nextTry(now, p.openUntil))
	case StateHalfOpen:
		r.Detail = fmt.Sprintf("circuit half-open after %d failures in a row (last: %s); the next call is a probe", p.failures, p.lastErr)
	case StateClosed:
		switch {
		case !p.called:
			r.Detail = "not called since the service started"
		case p.lastOK:
			r.Detail = "its last call answered"
		default:
			r.Detail = fmt.Sprintf("its last call failed (%d in a row; the circuit opens at %d): %s", p.failures, h.threshold, p.lastErr)
		}
	}
	return r
}

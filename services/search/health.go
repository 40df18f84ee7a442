package search

import (
	"fmt"
	"sync"
	"time"
)

// Provider states, as metrics and diagnostics show them.
const (
	StateClosed   = "closed"    // healthy: calls go through
	StateHalfOpen = "half_open" // after a cooldown: one probe call decides
	StateOpen     = "open"      // too many recent failures: skipped until the cooldown ends
	StateDisabled = "disabled"  // a rejected key or an exhausted quota: skipped until restart
)

// health tracks each provider: a circuit breaker for failures that may
// pass, and a permanent stop for those that will not.
type health struct {
	mu        sync.Mutex
	threshold int
	cooldown  time.Duration
	now       clock
	byName    map[string]*providerHealth
}

type providerHealth struct {
	failures  int
	openUntil time.Time
	probing   bool
	disabled  string
}

func newHealth(threshold int, cooldown time.Duration, now clock) *health {
	return &health{threshold: threshold, cooldown: cooldown, now: now, byName: map[string]*providerHealth{}}
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
// stops it and a sentence saying why.
func (h *health) allow(name string) (ok bool, state, why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.get(name)
	switch {
	case p.disabled != "":
		return false, StateDisabled, "disabled: " + p.disabled
	case p.failures < h.threshold:
		return true, StateClosed, ""
	case h.now().Before(p.openUntil):
		return false, StateOpen, fmt.Sprintf("circuit open after %d failures in a row; next try in %s", p.failures, p.openUntil.Sub(h.now()).Round(time.Second))
	case p.probing:
		return false, StateHalfOpen, "circuit half-open: a probe call is under way"
	}
	p.probing = true // this call is the probe
	return true, StateHalfOpen, ""
}

// release gives back a probe slot that allow granted but was not used.
func (h *health) release(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.get(name).probing = false
}

func (h *health) success(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.get(name)
	p.failures, p.probing, p.openUntil = 0, false, time.Time{}
}

// failure records err; it returns true when the provider was disabled by it.
func (h *health) failure(name string, err *ProviderError) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.get(name)
	if err.Kind == Auth || err.Kind == Quota {
		p.disabled = err.Message
		return true
	}
	p.failures++
	p.probing = false
	if p.failures >= h.threshold {
		p.openUntil = h.now().Add(h.cooldown)
	}
	return false
}

// state is name's state for metrics and diagnostics.
func (h *health) state(name string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.get(name)
	switch {
	case p.disabled != "":
		return StateDisabled
	case p.failures < h.threshold:
		return StateClosed
	case h.now().Before(p.openUntil):
		return StateOpen
	}
	return StateHalfOpen
}

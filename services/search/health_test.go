package search

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestBreakerOpensThenProbes(t *testing.T) {
	clk := &testClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	a := failing("searxng", Transient, 0, "timeout")
	b := okProvider("brave")
	s := newService(t, Options{BreakerThreshold: 3, BreakerCooldown: 30 * time.Second, Now: clk.now}, a, b)
	query := func(i int) *Page { return search(t, s, SearchParams{Query: fmt.Sprintf("q%d", i)}) }

	for i := range 3 {
		query(i)
	}
	if a.calls.Load() != 3 || s.States()["searxng"] != StateOpen {
		t.Fatalf("after 3 failures: calls %d, state %s", a.calls.Load(), s.States()["searxng"])
	}
	page := query(3)
	if a.calls.Load() != 3 || !strings.HasPrefix(page.FallbackFrom[0].Reason, "circuit open after 3 failures in a row; next try in 30s") {
		t.Fatalf("open circuit was called (%d) or reason %q", a.calls.Load(), page.FallbackFrom[0].Reason)
	}
	clk.add(29 * time.Second)
	query(4)
	if a.calls.Load() != 3 {
		t.Fatalf("called before the cooldown ended")
	}

	// Half-open: one probe; it fails, so the circuit opens again.
	clk.add(2 * time.Second)
	if s.States()["searxng"] != StateHalfOpen {
		t.Fatalf("state after cooldown = %s", s.States()["searxng"])
	}
	query(5)
	if a.calls.Load() != 4 || s.States()["searxng"] != StateOpen {
		t.Fatalf("probe: calls %d, state %s", a.calls.Load(), s.States()["searxng"])
	}
	query(6)
	if a.calls.Load() != 4 {
		t.Fatalf("called while open again")
	}

	// Next probe succeeds: closed, served by searxng again.
	clk.add(31 * time.Second)
	a.set(okProvider("searxng").results, nil)
	if p := query(7); p.Provider != "searxng" || s.States()["searxng"] != StateClosed {
		t.Fatalf("after a good probe: provider %s, state %s", p.Provider, s.States()["searxng"])
	}
}

func TestHalfOpenAllowsOneProbeAtATime(t *testing.T) {
	clk := &testClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	a := failing("searxng", Transient, 500, "boom")
	b := okProvider("brave")
	s := newService(t, Options{BreakerThreshold: 1, BreakerCooldown: time.Second, Now: clk.now}, a, b)
	search(t, s, SearchParams{Query: "first"})
	clk.add(2 * time.Second)

	a.gate = make(chan struct{})
	done := make(chan *Page)
	go func() { p, _ := s.WebSearch(context.Background(), SearchParams{Query: "probe"}); done <- p }()
	for a.calls.Load() != 2 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	page, err := s.WebSearch(ctx, SearchParams{Query: "during the probe"})
	if err != nil {
		close(a.gate)
		t.Fatalf("second caller during the probe waited for it: %v", err)
	}
	if page.FallbackFrom[0].Reason != "circuit half-open: a probe call is under way" {
		t.Fatalf("second caller during the probe: %+v", page.FallbackFrom)
	}
	close(a.gate)
	if p := <-done; p == nil || p.Provider != "brave" {
		t.Fatalf("probe call: %+v", p)
	}
}

// A provider disabled by a rejected configuration or a used-up quota comes
// back by itself: after its cooldown one probe call decides, and every
// skip says when that will be.
func TestDisabledProviderIsProbedAfterItsCooldown(t *testing.T) {
	clk := &testClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	a := failing("searxng", Auth, 403, "SearXNG at http://searxng:8080 answered 403: add json to search.formats in its settings.yml")
	b := okProvider("brave")
	s := newService(t, Options{AuthCooldown: 10 * time.Minute, Now: clk.now}, a, b)

	page := search(t, s, SearchParams{Query: "q0"})
	if want := "answered 403: add json to search.formats in its settings.yml; disabled, next try in 10m0s (at 2026-01-01T00:10:00Z)"; !strings.HasSuffix(page.FallbackFrom[0].Reason, want) {
		t.Fatalf("reason %q, want it to end %q", page.FallbackFrom[0].Reason, want)
	}
	clk.add(9 * time.Minute)
	page = search(t, s, SearchParams{Query: "q1"})
	if a.calls.Load() != 1 || !strings.HasSuffix(page.FallbackFrom[0].Reason, "next try in 1m0s (at 2026-01-01T00:10:00Z)") {
		t.Fatalf("calls %d, reason %q", a.calls.Load(), page.FallbackFrom[0].Reason)
	}
	h := s.Health().Providers[0]
	if h.Name != "searxng" || h.State != StateDisabled || h.RetryAt != "2026-01-01T00:10:00Z" || h.Reachable == nil || *h.Reachable ||
		!strings.Contains(h.Detail, "settings.yml; next try in 1m0s") {
		t.Fatalf("health %+v", h)
	}

	// Still refused at the probe: disabled for another cooldown.
	clk.add(2 * time.Minute)
	search(t, s, SearchParams{Query: "q2"})
	if a.calls.Load() != 2 || s.States()["searxng"] != StateDisabled {
		t.Fatalf("probe: calls %d, state %s", a.calls.Load(), s.States()["searxng"])
	}

	// The self-hoster fixed settings.yml: the next probe brings it back.
	clk.add(10 * time.Minute)
	a.set(okProvider("searxng").results, nil)
	if p := search(t, s, SearchParams{Query: "q3"}); p.Provider != "searxng" || s.States()["searxng"] != StateClosed {
		t.Fatalf("after the fix: provider %s, state %s", p.Provider, s.States()["searxng"])
	}
	if h := s.Health().Providers[0]; h.State != StateClosed || h.Reachable == nil || !*h.Reachable || h.RetryAt != "" {
		t.Fatalf("health after the fix %+v", h)
	}
}

func TestQuotaHonoursRetryAfter(t *testing.T) {
	clk := &testClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	a := &fakeProvider{name: "brave", err: &ProviderError{Provider: "brave", Kind: Quota, Status: 402, Message: "quota used up", RetryAfter: 2 * time.Hour}}
	b := failing("exa", Quota, 402, "out of credits")
	c := okProvider("tavily")
	s := newService(t, Options{QuotaCooldown: 5 * time.Minute, Now: clk.now}, a, b, c)
	search(t, s, SearchParams{Query: "q0"})
	clk.add(6 * time.Minute)
	a.set(okProvider("brave").results, nil)
	b.set(okProvider("exa").results, nil)
	// exa's default cooldown is over; brave asked for two hours.
	if p := search(t, s, SearchParams{Query: "q1"}); p.Provider != "exa" || a.calls.Load() != 1 {
		t.Fatalf("served by %s, brave called %d times", p.Provider, a.calls.Load())
	}
	clk.add(2 * time.Hour)
	if p := search(t, s, SearchParams{Query: "q2"}); p.Provider != "brave" {
		t.Fatalf("served by %s after Retry-After", p.Provider)
	}
}

func TestHealthNamesEveryProviderOfARole(t *testing.T) {
	s := newService(t, Options{SearchOrder: []string{"searxng", "brave"}, AnswerOrder: []string{"gemini", "brave"}}, okProvider("brave"))
	got := s.Health().Providers
	if len(got) != 3 {
		t.Fatalf("providers %+v", got)
	}
	for i, want := range []struct{ name, state, roles string }{
		{"searxng", "not_configured", ""}, {"brave", StateClosed, "search"}, {"gemini", "not_configured", ""},
	} {
		if p := got[i]; p.Name != want.name || p.State != want.state || strings.Join(p.Roles, ",") != want.roles || p.Reachable != nil || p.Detail == "" {
			t.Errorf("provider %d: %+v, want %+v", i, p, want)
		}
	}
}

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

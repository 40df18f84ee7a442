package search

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

func TestCacheHitsMissesAndExpiry(t *testing.T) {
	clk := &testClock{t: time.Now()}
	cache := NewMemoryCache(10)
	cache.now = clk.now
	var seen []string
	var mu sync.Mutex
	obs := Observer{Cache: func(r string) { mu.Lock(); seen = append(seen, r); mu.Unlock() }}
	a := okProvider("searxng")
	s := newService(t, Options{Cache: cache, CacheTTL: time.Minute, Observer: obs}, a)

	first := search(t, s, SearchParams{Query: "Go  Generics"})
	second := search(t, s, SearchParams{Query: "go generics "})
	if first.Cached || !second.Cached || a.calls.Load() != 1 {
		t.Fatalf("cached %v then %v, provider calls %d", first.Cached, second.Cached, a.calls.Load())
	}
	if len(second.Results) != len(first.Results) || second.Results[0] != first.Results[0] {
		t.Fatalf("cached page differs: %+v vs %+v", second.Results, first.Results)
	}
	search(t, s, SearchParams{Query: "go generics", MaxResults: 1})
	if a.calls.Load() != 2 {
		t.Fatalf("another max_results must be another entry")
	}
	clk.add(61 * time.Second)
	if p := search(t, s, SearchParams{Query: "go generics"}); p.Cached || a.calls.Load() != 3 {
		t.Fatalf("expired entry served (cached=%v, calls %d)", p.Cached, a.calls.Load())
	}
	if got := strings.Join(seen, ","); got != "miss,hit,miss,miss" {
		t.Fatalf("cache outcomes %s", got)
	}
}

func TestFailuresAreNotCached(t *testing.T) {
	a := failing("searxng", Transient, 502, "bad gateway")
	s := newService(t, Options{}, a)
	if _, err := s.WebSearch(context.Background(), SearchParams{Query: "q"}); err == nil {
		t.Fatal("want an error")
	}
	a.set(okProvider("searxng").results, nil)
	if p := search(t, s, SearchParams{Query: "q"}); p.Cached || p.Provider != "searxng" {
		t.Fatalf("after recovery: %+v", p)
	}
}

// brokenCache fails every call, as Redis does when it is down.
type brokenCache struct{}

type brokenLimiter struct{}

func TestBrokenCacheAndLimiterDoNotStopSearch(t *testing.T) {
	var errs atomic.Int32
	obs := Observer{Cache: func(r string) {
		if r == "error" {
			errs.Add(1)
		}
	}}
	a := okProvider("searxng")
	s := newService(t, Options{Cache: brokenCache{}, Limiter: brokenLimiter{}, Limits: map[string]Limit{"searxng": {PerMinute: 1, Burst: 1}}, Observer: obs}, a)
	for range 3 {
		if p := search(t, s, SearchParams{Query: "q"}); p.Provider != "searxng" || p.Cached {
			t.Fatalf("page %+v", p)
		}
	}
	if a.calls.Load() != 3 || errs.Load() != 6 {
		t.Fatalf("calls %d, cache errors counted %d (want 3 and 6)", a.calls.Load(), errs.Load())
	}
}

func TestSingleFlightSharesOneCall(t *testing.T) {
	a := okProvider("searxng")
	a.gate = make(chan struct{})
	s := newService(t, Options{}, a)
	const n = 20
	var wg sync.WaitGroup
	pages := make([]*Page, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pages[i], errs[i] = s.WebSearch(context.Background(), SearchParams{Query: "same query"})
		}()
	}
	// Let every caller arrive, then let the one call finish.
	for deadline := time.Now().Add(5 * time.Second); a.calls.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	close(a.gate)
	wg.Wait()
	for i := range n {
		if errs[i] != nil || len(pages[i].Results) != 2 {
			t.Fatalf("caller %d: %v %+v", i, errs[i], pages[i])
		}
	}
	if c := a.calls.Load(); c != 1 {
		t.Fatalf("provider called %d times for %d identical concurrent queries", c, n)
	}
}

func TestCallerGivingUpDoesNotCancelOthersOrCountAsFailure(t *testing.T) {
	a := okProvider("searxng")
	a.gate = make(chan struct{})
	s := newService(t, Options{BreakerThreshold: 1}, a)
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error)
	go func() { _, err := s.WebSearch(ctx, SearchParams{Query: "q"}); first <- err }()
	for a.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	second := make(chan *Page)
	go func() { p, _ := s.WebSearch(context.Background(), SearchParams{Query: "q"}); second <- p }()
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("first caller: %v", err)
	}
	close(a.gate)
	if p := <-second; p == nil || p.Provider != "searxng" {
		t.Fatalf("second caller: %+v", p)
	}
	if s.States()["searxng"] != StateClosed {
		t.Fatalf("a caller's cancel counted as a provider failure")
	}
	// The shared result was cached for later callers.
	if p := search(t, s, SearchParams{Query: "q"}); !p.Cached || a.calls.Load() != 1 {
		t.Fatalf("cached %v, calls %d", p.Cached, a.calls.Load())
	}
}

func TestRateLimitSkipsToTheNextProvider(t *testing.T) {
	clk := &testClock{t: time.Now()}
	lim := NewMemoryLimiter()
	lim.now = clk.now
	a, b := okProvider("brave"), okProvider("exa")
	s := newService(t, Options{Limiter: lim, Limits: map[string]Limit{"brave": {PerMinute: 2, Burst: 1}}}, a, b)
	if p := search(t, s, SearchParams{Query: "one"}); p.Provider != "brave" {
		t.Fatalf("first: %s", p.Provider)
	}
	p := search(t, s, SearchParams{Query: "two"})
	if p.Provider != "exa" || p.FallbackFrom[0].Reason != "over its rate limit of 2 requests a minute" {
		t.Fatalf("second: %s %+v", p.Provider, p.FallbackFrom)
	}
	_, err := s.WebSearch(context.Background(), SearchParams{Query: "three", Provider: "brave"})
	if e := contract.AsError(err); e.Code != contract.CodeRateLimited {
		t.Fatalf("pinned over the limit: %v", err)
	}
	clk.add(30 * time.Second) // 2 a minute: one token back
	if p := search(t, s, SearchParams{Query: "four"}); p.Provider != "brave" || a.calls.Load() != 2 {
		t.Fatalf("after refill: %s, calls %d", p.Provider, a.calls.Load())
	}
}

func TestMemoryLimiterRefillsUpToBurst(t *testing.T) {
	clk := &testClock{t: time.Now()}
	l := NewMemoryLimiter()
	l.now = clk.now
	take := func() bool { ok, _ := l.Take(context.Background(), "p", 60, 3); return ok }
	for i := range 3 {
		if !take() {
			t.Fatalf("token %d of the burst refused", i)
		}
	}
	if take() {
		t.Fatal("a fourth token without waiting")
	}
	clk.add(time.Hour) // refills to the burst, not beyond
	n := 0
	for take() {
		n++
	}
	if n != 3 {
		t.Fatalf("after an hour %d tokens, want the burst of 3", n)
	}
	if ok, _ := l.Take(context.Background(), "unlimited", 0, 0); !ok {
		t.Fatal("no limit configured must allow")
	}
}

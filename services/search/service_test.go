package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// fakeProvider answers from a script: err when set, else results. gate,
// when set, holds every call until it is closed.
type fakeProvider struct {
	name    string
	mu      sync.Mutex
	results []Result
	err     error
	gate    chan struct{}
	calls   atomic.Int32
}

func (f *fakeProvider) Name() string { return f.name }

func (f *fakeProvider) Search(ctx context.Context, q Query) ([]Result, error) {
	f.calls.Add(1)
	if f.gate != nil {
		<-f.gate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	return f.results, nil
}

func (f *fakeProvider) set(results []Result, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.results, f.err = results, err
}

func okProvider(name string) *fakeProvider {
	return &fakeProvider{name: name, results: []Result{
		{Title: "One", URL: "https://example.com/1", Snippet: "first " + name, Provider: name, Score: 1},
		{Title: "Two", URL: "https://example.com/2", Snippet: "second " + name, Provider: name, Score: 0.5},
	}}
}

func failing(name string, kind Kind, status int, msg string) *fakeProvider {
	return &fakeProvider{name: name, err: Errf(name, kind, status, "%s", msg)}
}

// testClock is a settable clock.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newService(t *testing.T, opts Options, ps ...*fakeProvider) *Service {
	t.Helper()
	opts.Providers = map[string]Provider{}
	for _, p := range ps {
		opts.Providers[p.name] = p
		if opts.SearchOrder == nil || !slices.Contains(opts.SearchOrder, p.name) {
			opts.SearchOrder = append(opts.SearchOrder, p.name)
		}
	}
	return NewService(opts)
}

func search(t *testing.T, s *Service, p SearchParams) *Page {
	t.Helper()
	page, err := s.WebSearch(context.Background(), p)
	if err != nil {
		t.Fatalf("WebSearch(%+v): %v", p, err)
	}
	return page
}

func TestFallbackGoesInOrderAndSaysWhy(t *testing.T) {
	a := failing("searxng", Transient, 503, "SearXNG answered 503")
	b := failing("brave", Auth, 422, "Brave answered 422: check OPENHUMAN_BRAVE_API_KEY")
	c := okProvider("tavily")
	d := okProvider("exa")
	s := newService(t, Options{}, a, b, c, d)

	page := search(t, s, SearchParams{Query: "go generics"})
	if page.Provider != "tavily" || d.calls.Load() != 0 {
		t.Fatalf("served by %s (exa called %d times), want tavily and exa untouched", page.Provider, d.calls.Load())
	}
	want := []Skip{{"searxng", "SearXNG answered 503"}, {"brave", "Brave answered 422: check OPENHUMAN_BRAVE_API_KEY"}}
	if fmt.Sprint(page.FallbackFrom) != fmt.Sprint(want) {
		t.Fatalf("fallback_from = %v, want %v", page.FallbackFrom, want)
	}
	if len(page.Citations) != 2 || page.Citations[0].URL != "https://example.com/1" {
		t.Fatalf("citations = %+v", page.Citations)
	}

	// Brave rejected its key: it stays disabled; SearXNG is tried again.
	page = search(t, s, SearchParams{Query: "rust traits"})
	if a.calls.Load() != 2 || b.calls.Load() != 1 {
		t.Fatalf("calls searxng=%d brave=%d, want 2 and 1", a.calls.Load(), b.calls.Load())
	}
	if !strings.HasPrefix(page.FallbackFrom[1].Reason, "disabled: ") {
		t.Fatalf("brave skipped for %q, want disabled", page.FallbackFrom[1].Reason)
	}
	if got := s.States(); got["brave"] != StateDisabled || got["searxng"] != StateClosed || got["tavily"] != StateClosed {
		t.Fatalf("states = %v", got)
	}
}

func TestEveryProviderFailingIsAnErrorNamingEach(t *testing.T) {
	s := newService(t, Options{}, failing("searxng", Transient, 200, "SearXNG returned no results because its engines failed (google: timeout)"),
		failing("brave", Quota, 402, "quota used up"))
	_, err := s.WebSearch(context.Background(), SearchParams{Query: "q"})
	e := contract.AsError(err)
	if e == nil || e.Code != contract.CodeUnavailable {
		t.Fatalf("err = %v, want UNAVAILABLE", err)
	}
	for _, part := range []string{"searxng: SearXNG returned no results because its engines failed (google: timeout)", "brave: quota used up"} {
		if !strings.Contains(e.Message, part) {
			t.Fatalf("message %q lacks %q", e.Message, part)
		}
	}
	if skips, _ := e.Data["fallback_from"].([]Skip); len(skips) != 2 {
		t.Fatalf("data.fallback_from = %#v", e.Data["fallback_from"])
	}
}

func TestPinnedProviderNeverFallsBack(t *testing.T) {
	a := failing("searxng", Transient, 429, "SearXNG answered 429: its limiter refused us")
	b := okProvider("brave")
	s := newService(t, Options{}, a, b)

	_, err := s.WebSearch(context.Background(), SearchParams{Query: "q", Provider: "searxng"})
	e := contract.AsError(err)
	if e.Code != contract.CodeRateLimited || !strings.Contains(e.Message, "its limiter refused us") || b.calls.Load() != 0 {
		t.Fatalf("pinned failure: %v (code %s), brave calls %d", err, e.Code, b.calls.Load())
	}
	page := search(t, s, SearchParams{Query: "q", Provider: "brave"})
	if page.Provider != "brave" || len(page.FallbackFrom) != 0 {
		t.Fatalf("pinned brave: %+v", page)
	}
	_, err = s.WebSearch(context.Background(), SearchParams{Query: "q", Provider: "exa"})
	e = contract.AsError(err)
	if e.Code != contract.CodeInvalidRequest || e.Data["field"] != "provider" || !strings.Contains(e.Message, "configured: searxng, brave") {
		t.Fatalf("unconfigured pin: %v %v", e.Code, e)
	}

	// A disabled provider, pinned, says so and is not called.
	q := failing("tavily", Quota, 432, "Tavily answered 432: the plan's quota is used up")
	s = newService(t, Options{}, q)
	_, _ = s.WebSearch(context.Background(), SearchParams{Query: "one"})
	_, err = s.WebSearch(context.Background(), SearchParams{Query: "two", Provider: "tavily"})
	if e := contract.AsError(err); e.Code != contract.CodeUnavailable || !strings.Contains(e.Message, "disabled: Tavily answered 432") || q.calls.Load() != 1 {
		t.Fatalf("pinned disabled: %v (code %s), calls %d", err, e.Code, q.calls.Load())
	}
}

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

func (brokenCache) Get(context.Context, string) ([]byte, bool, error) {
	return nil, false, errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
}
func (brokenCache) Set(context.Context, string, []byte, time.Duration) error {
	return errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
}

type brokenLimiter struct{}

func (brokenLimiter) Take(context.Context, string, int, int) (bool, error) {
	return false, errors.New("connection refused")
}

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

func TestResultsAreDedupedAndCut(t *testing.T) {
	a := &fakeProvider{name: "searxng", results: []Result{
		{Title: "A", URL: "https://www.Example.com:443/page/?utm_source=x&b=2&a=1#top"},
		{Title: "A again", URL: "https://example.com/page?a=1&b=2&gclid=9"},
		{Title: "B", URL: "http://example.com/other"},
		{Title: "no URL"},
		{Title: "C", URL: "https://example.org/c"},
	}}
	s := newService(t, Options{}, a)
	p := search(t, s, SearchParams{Query: "q", MaxResults: 2})
	if len(p.Results) != 2 || p.Results[0].Title != "A" || p.Results[1].Title != "B" {
		t.Fatalf("results %+v", p.Results)
	}
	if p.Results[0].URL != "https://www.Example.com:443/page/?utm_source=x&b=2&a=1#top" {
		t.Fatalf("the original URL must be shown, got %s", p.Results[0].URL)
	}
}

func TestNormalizeURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://WWW.Example.COM/a/b/#frag":                "example.com/a/b",
		"http://example.com:80/a?z=1&a=2&utm_medium=email": "example.com/a?a=2&z=1",
		"https://example.com:8443/a?fbclid=1&GCLID=2":      "example.com:8443/a",
		"https://example.com/a?q=x%20y&q=a":                "example.com/a?q=a&q=x+y",
		"https://example.com":                              "example.com",
		"not a url":                                        "not a url",
	} {
		if got := NormalizeURL(in); got != want {
			t.Errorf("NormalizeURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestToolsAreListedOnlyWhenUsable(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"nothing", Options{}, ""},
		{"searxng", Options{Providers: map[string]Provider{"searxng": okProvider("searxng")}, SearchOrder: []string{"searxng"}, SearXNG: "searxng"}, "web_search,web_answer,searxng_search"},
		{"brave", Options{Providers: map[string]Provider{"brave": okProvider("brave")}, SearchOrder: []string{"searxng", "brave"}}, "web_search,web_answer"},
		{"gemini only", Options{Answerers: map[string]Answerer{"gemini": &fakeAnswerer{name: "gemini"}}, AnswerOrder: []string{"gemini"}}, "web_answer"},
		{"provider not in the order", Options{Providers: map[string]Provider{"exa": okProvider("exa")}, SearchOrder: []string{"brave"}}, ""},
	} {
		if got := strings.Join(NewService(tc.opts).Tools(), ","); got != tc.want {
			t.Errorf("%s: tools %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSearXNGSearchUsesItsDefaultMax(t *testing.T) {
	a := &fakeProvider{name: "searxng"}
	for i := range 15 {
		a.results = append(a.results, Result{Title: fmt.Sprint(i), URL: fmt.Sprintf("https://example.com/%d", i)})
	}
	b := okProvider("brave")
	s := NewService(Options{Providers: map[string]Provider{"searxng": a, "brave": b}, SearchOrder: []string{"brave", "searxng"}, SearXNG: "searxng", SearXNGMaxResults: 10})
	p, err := s.SearXNGSearch(context.Background(), SearchParams{Query: "q"})
	if err != nil || p.Provider != "searxng" || len(p.Results) != 10 || b.calls.Load() != 0 {
		t.Fatalf("searxng_search: %v %+v", err, p)
	}
	if _, err := NewService(Options{}).SearXNGSearch(context.Background(), SearchParams{Query: "q"}); contract.ErrorCode(err) != contract.CodeUnavailable {
		t.Fatalf("without SearXNG: %v", err)
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

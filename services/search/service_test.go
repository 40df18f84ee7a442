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
	clk := &testClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := newService(t, Options{Now: clk.now}, a, b, c, d)

	page := search(t, s, SearchParams{Query: "go generics"})
	if page.Provider != "tavily" || d.calls.Load() != 0 {
		t.Fatalf("served by %s (exa called %d times), want tavily and exa untouched", page.Provider, d.calls.Load())
	}
	want := []Skip{{Provider: "searxng", Reason: "SearXNG answered 503"}, {Provider: "brave", Reason: "Brave answered 422: check OPENHUMAN_BRAVE_API_KEY; disabled, next try in 10m0s (at 2026-01-01T00:10:00Z)"}}
	if fmt.Sprint(page.FallbackFrom) != fmt.Sprint(want) {
		t.Fatalf("fallback_from = %v, want %v", page.FallbackFrom, want)
	}
	if len(page.Citations) != 2 || page.Citations[0].URL != "https://example.com/1" {
		t.Fatalf("citations = %+v", page.Citations)
	}

	// Brave rejected its key: it stays disabled for now; SearXNG is tried again.
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

func (brokenCache) Get(context.Context, string) ([]byte, bool, error) {
	return nil, false, errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
}

func (brokenCache) Set(context.Context, string, []byte, time.Duration) error {
	return errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
}

func (brokenLimiter) Take(context.Context, string, int, int) (bool, error) {
	return false, errors.New("connection refused")
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

package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Limit is a provider's rate limit.
type Limit struct {
	PerMinute, Burst int
}

// Observer is told what happens, for metrics. Every field may be nil.
type Observer struct {
	ProviderCall func(provider, outcome string, took time.Duration) // outcome: ok, transient, auth, quota, malformed
	Fallback     func(provider, reason string)                      // reason: disabled, open, half_open, rate_limited, failed
	Cache        func(result string)                                // hit, miss, error
}

// Options configure a Service. Providers and Answerers hold what is
// configured; the orders name them by preference.
type Options struct {
	// Phase, when set, starts a span per provider tried (phase.go).
	Phase       PhaseFunc
	Providers   map[string]Provider
	Answerers   map[string]Answerer
	SearchOrder []string
	AnswerOrder []string
	// SearXNG names the provider searxng_search uses ("" when SearXNG is
	// not enabled).
	SearXNG string
	// SearXNGMaxResults is searxng_search's default max_results.
	SearXNGMaxResults int
	// Writer writes answers from search results when no answerer is
	// configured (or all failed); without one, answers are extractive.
	Writer   Writer
	Cache    Cache
	Limiter  Limiter
	CacheTTL time.Duration
	Limits   map[string]Limit
	// BreakerThreshold failures in a row open a provider's circuit for
	// BreakerCooldown (defaults 3 and 30 s).
	BreakerThreshold int
	BreakerCooldown  time.Duration
	// AuthCooldown is how long a rejected key or configuration (401, 403,
	// 404) disables a provider before a probe call (default 10 minutes);
	// QuotaCooldown is how long an exhausted quota does when the provider
	// sends no Retry-After (default 5 minutes). A Retry-After wins.
	AuthCooldown  time.Duration
	QuotaCooldown time.Duration
	Now           func() time.Time
	Logger        *slog.Logger
	Observer      Observer
}

// Service runs the web tools.
type Service struct {
	opts   Options
	health *health
	flight flight
	log    *slog.Logger
}

// NewService applies defaults to opts.
func NewService(opts Options) *Service {
	if opts.Phase == nil {
		opts.Phase = noPhase
	}
	if opts.Cache == nil {
		opts.Cache = NewMemoryCache(1000)
	}
	if opts.Limiter == nil {
		opts.Limiter = NewMemoryLimiter()
	}
	if opts.CacheTTL <= 0 {
		opts.CacheTTL = 10 * time.Minute
	}
	if opts.BreakerThreshold <= 0 {
		opts.BreakerThreshold = 3
	}
	if opts.BreakerCooldown <= 0 {
		opts.BreakerCooldown = 30 * time.Second
	}
	if opts.AuthCooldown <= 0 {
		opts.AuthCooldown = 10 * time.Minute
	}
	if opts.QuotaCooldown <= 0 {
		opts.QuotaCooldown = 5 * time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{opts: opts, health: newHealth(opts.BreakerThreshold, opts.BreakerCooldown, opts.AuthCooldown, opts.QuotaCooldown, opts.Now), log: opts.Logger}
}

// Tools names the tools this configuration can serve: a tool is offered
// only when a provider for its role is configured.
func (s *Service) Tools() []string {
	var out []string
	searchable := len(s.searchOrder()) > 0
	if searchable {
		out = append(out, "web_search")
	}
	if searchable || len(s.answerOrder()) > 0 {
		out = append(out, "web_answer")
	}
	if s.opts.SearXNG != "" {
		out = append(out, "searxng_search")
	}
	return out
}

// States reports each configured provider's health state.
func (s *Service) States() map[string]string {
	out := map[string]string{}
	for name := range s.opts.Providers {
		out[name] = s.health.state(name)
	}
	for name := range s.opts.Answerers {
		out[name] = s.health.state(name)
	}
	return out
}

// Health reports every provider a role names, configured or not, in role
// order (search, then answer): its state, whether its last call answered,
// and when a skipped one is tried again.
func (s *Service) Health() contract.SearchHealth {
	out := contract.SearchHealth{Providers: []contract.SearchProvider{}, Tools: map[string][]string{}}
	for _, tool := range s.Tools() {
		switch tool {
		case "web_search":
			out.Tools[tool] = s.searchOrder()
		case "web_answer":
			var both []string
			for _, n := range append(s.answerOrder(), s.searchOrder()...) {
				if !slices.Contains(both, n) {
					both = append(both, n)
				}
			}
			out.Tools[tool] = both
		case "searxng_search":
			out.Tools[tool] = []string{s.opts.SearXNG}
		}
	}
	index := map[string]int{}
	add := func(order []string, role string, configured func(string) bool) {
		for _, name := range order {
			i, ok := index[name]
			if !ok {
				p := contract.SearchProvider{Name: name, State: contract.ProviderNotConfigured, Roles: []string{},
					Detail: "not configured: set its API key (or, for SearXNG, [searxng] enabled and base_url)"}
				if s.isConfigured(name) {
					p = s.health.report(name)
					p.Roles = []string{}
				}
				i, index[name] = len(out.Providers), len(out.Providers)
				out.Providers = append(out.Providers, p)
			}
			if configured(name) {
				out.Providers[i].Roles = append(out.Providers[i].Roles, role)
			}
		}
	}
	add(s.opts.SearchOrder, "search", func(n string) bool { _, ok := s.opts.Providers[n]; return ok })
	add(s.opts.AnswerOrder, "answer", func(n string) bool { _, ok := s.opts.Answerers[n]; return ok })
	return out
}

func (s *Service) isConfigured(name string) bool {
	_, search := s.opts.Providers[name]
	_, answer := s.opts.Answerers[name]
	return search || answer
}

// SearchProviders and AnswerProviders name the configured providers of
// each role, in order.
func (s *Service) SearchProviders() []string { return s.searchOrder() }
func (s *Service) AnswerProviders() []string { return s.answerOrder() }

func (s *Service) searchOrder() []string { return configured(s.opts.SearchOrder, s.opts.Providers) }
func (s *Service) answerOrder() []string { return configured(s.opts.AnswerOrder, s.opts.Answerers) }

// configured keeps the names of order that have an entry in m, in order.
func configured[T any](order []string, m map[string]T) []string {
	var out []string
	for _, n := range order {
		if _, ok := m[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

// SearchParams are declared in pkg/contract, which generates their schema.
type SearchParams = contract.SearchParams

// WebSearch searches with the configured providers in order; a pinned
// provider is the only one tried, and its own failure is returned.
func (s *Service) WebSearch(ctx context.Context, p SearchParams) (*Page, error) {
	order := s.searchOrder()
	if p.Provider != "" {
		if _, ok := s.opts.Providers[p.Provider]; !ok {
			return nil, contract.Errorf(contract.CodeInvalidRequest, "argument `provider`: %q is not configured here; configured: %s",
				p.Provider, strings.Join(order, ", ")).With("field", "provider")
		}
		order = []string{p.Provider}
	}
	if len(order) == 0 {
		return nil, contract.Errorf(contract.CodeUnavailable, "no search provider is configured: enable SearXNG or set an API key (docs/web-search.md says how)")
	}
	max := clampMax(p.MaxResults)
	return s.cached(ctx, "search", order, p.Query, max, func(ctx context.Context) (*Page, error) {
		return s.search(ctx, Query{Text: p.Query, MaxResults: max}, order, p.Provider != "")
	})
}

// SearXNGSearch searches the configured SearXNG instance only.
func (s *Service) SearXNGSearch(ctx context.Context, p SearchParams) (*Page, error) {
	if s.opts.SearXNG == "" {
		return nil, contract.Errorf(contract.CodeUnavailable, "SearXNG is not enabled: set [searxng] enabled = true and base_url")
	}
	p.Provider = s.opts.SearXNG
	if p.MaxResults == 0 {
		p.MaxResults = s.opts.SearXNGMaxResults
	}
	return s.WebSearch(ctx, p)
}

// cached serves a page from the cache, or computes it once for all
// concurrent identical requests and caches it. Failures are not cached.
func (s *Service) cached(ctx context.Context, kind string, order []string, query string, max int, compute func(context.Context) (*Page, error)) (*Page, error) {
	key := kind + "\x00" + strings.Join(order, ",") + "\x00" + normalizeQuery(query) + "\x00" + strconv.Itoa(max)
	if raw, ok, err := s.opts.Cache.Get(ctx, key); err != nil {
		s.observeCache("error")
		s.log.Debug("search cache unavailable; searching without it", "err", err)
	} else if ok {
		var page Page
		if json.Unmarshal(raw, &page) == nil {
			s.observeCache("hit")
			page.Cached = true
			return &page, nil
		}
	} else {
		s.observeCache("miss")
	}
	return s.flight.do(ctx, key, func(ctx context.Context) (*Page, error) {
		page, err := compute(ctx)
		if err != nil {
			return nil, err
		}
		if raw, err := json.Marshal(page); err == nil {
			if err := s.opts.Cache.Set(ctx, key, raw, s.opts.CacheTTL); err != nil {
				s.observeCache("error")
				s.log.Debug("search cache unavailable; result not cached", "err", err)
			}
		}
		return page, nil
	})
}

// search tries providers in order until one answers.
func (s *Service) search(ctx context.Context, q Query, order []string, pinned bool) (*Page, error) {
	var skips []Skip
	for _, name := range order {
		if skip := s.admit(ctx, name); skip != nil {
			if pinned {
				return nil, skip.refusal(name)
			}
			skips = append(skips, Skip{Provider: name, Reason: skip.reason})
			continue
		}
		start := time.Now()
		pctx, done := s.opts.Phase(ctx, "search provider "+name)
		results, err := s.opts.Providers[name].Search(pctx, q)
		done(err)
		if err != nil {
			until := s.failed(name, err, time.Since(start))
			if pinned {
				return nil, toContract(err, until, s.opts.Now())
			}
			skips = append(skips, Skip{Provider: name, Reason: s.skipReason(err, until)})
			continue
		}
		s.succeeded(name, time.Since(start))
		results = dedupe(results)
		if len(results) > q.MaxResults {
			results = results[:q.MaxResults]
		}
		return &Page{Results: results, Provider: name, Citations: citationsOf(results), FallbackFrom: nonNil(skips)}, nil
	}
	return nil, allFailed(skips)
}

// skipped says why a provider is not called. code is what a caller who
// pinned that provider gets: RATE_LIMITED for our own limit, UNAVAILABLE
// for its health.
type skipped struct {
	code   contract.Code
	reason string
}

// refusal is the error for a caller who pinned the skipped provider.
func (sk *skipped) refusal(name string) error {
	return contract.Errorf(sk.code, "%s is skipped: %s", name, sk.reason).With("provider", name)
}

// admit checks health and the rate limit; it returns why name is skipped,
// or nil when it may be called.
func (s *Service) admit(ctx context.Context, name string) *skipped {
	if ok, state, why := s.health.allow(name); !ok {
		s.observeFallback(name, state)
		return &skipped{code: contract.CodeUnavailable, reason: why}
	}
	if l, ok := s.opts.Limits[name]; ok {
		allowed, err := s.opts.Limiter.Take(ctx, name, l.PerMinute, max(l.Burst, 1))
		if err != nil {
			s.log.Debug("rate limiter unavailable; letting the call through", "provider", name, "err", err)
		} else if !allowed {
			s.health.release(name)
			s.observeFallback(name, "rate_limited")
			return &skipped{code: contract.CodeRateLimited, reason: fmt.Sprintf("over its rate limit of %d requests a minute", l.PerMinute)}
		}
	}
	return nil
}

// failed records a provider's failure. When it disables the provider, it
// returns when the provider is tried again.
func (s *Service) failed(name string, err error, took time.Duration) (disabledUntil time.Time) {
	pe, ok := errors.AsType[*ProviderError](err)
	if !ok {
		pe = Errf(name, Transient, 0, "%v", err)
	}
	s.observeCall(name, kindName(pe.Kind), took)
	s.observeFallback(name, "failed")
	if until := s.health.failure(name, pe); !until.IsZero() {
		s.log.Error("search provider disabled: fix what the reason says; one call will try it again at retry_at",
			"provider", name, "reason", pe.Message, "retry_at", until.UTC().Format(time.RFC3339))
		return until
	}
	s.log.Warn("search provider failed", "provider", name, "err", pe.Message)
	return time.Time{}
}

// skipReason is why a provider that just failed was passed over, with when
// it is tried again if the failure disabled it.
func (s *Service) skipReason(err error, disabledUntil time.Time) string {
	if disabledUntil.IsZero() {
		return errMessage(err)
	}
	return errMessage(err) + "; disabled, " + nextTry(s.opts.Now(), disabledUntil)
}

func (s *Service) succeeded(name string, took time.Duration) {
	s.observeCall(name, "ok", took)
	if s.health.success(name) {
		s.log.Info("search provider answers again: enabled", "provider", name)
	}
}

func allFailed(skips []Skip) error {
	var parts []string
	for _, sk := range skips {
		parts = append(parts, sk.Provider+": "+sk.Reason)
	}
	e := contract.Errorf(contract.CodeUnavailable, "every search provider failed: %s", strings.Join(parts, "; "))
	return e.With("fallback_from", skips)
}

func errMessage(err error) string {
	if pe, ok := errors.AsType[*ProviderError](err); ok {
		return pe.Message
	}
	return err.Error()
}

func kindName(k Kind) string {
	switch k {
	case Auth:
		return "auth"
	case Quota:
		return "quota"
	case Malformed:
		return "malformed"
	}
	return "transient"
}

func citationsOf(results []Result) []Citation {
	out := make([]Citation, len(results))
	for i, r := range results {
		out[i] = Citation{URL: r.URL, Title: r.Title}
	}
	return out
}

func nonNil(s []Skip) []Skip {
	if s == nil {
		return []Skip{}
	}
	return s
}

func (s *Service) observeCall(p, outcome string, took time.Duration) {
	if f := s.opts.Observer.ProviderCall; f != nil {
		f(p, outcome, took)
	}
}

func (s *Service) observeFallback(p, reason string) {
	if f := s.opts.Observer.Fallback; f != nil {
		f(p, reason)
	}
}

func (s *Service) observeCache(result string) {
	if f := s.opts.Observer.Cache; f != nil {
		f(result)
	}
}

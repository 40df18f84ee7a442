// Package searchmain starts the search service from configuration on a NATS
// connection: providers in their configured order, the cache and rate
// limits (in Redis when configured, else in-process), the language model
// that writes answers, and the metrics. openhuman-search and the gateway's
// embedded mode both call it.
package searchmain

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/callauth/callauthmain"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/llm"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
	"github.com/openhuman-go/openhuman-go/pkg/secrets"
	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
	"github.com/openhuman-go/openhuman-go/pkg/tracing"
	"github.com/openhuman-go/openhuman-go/services/search"
	"github.com/openhuman-go/openhuman-go/services/search/natsbus"
	"github.com/openhuman-go/openhuman-go/services/search/providers"
	"github.com/openhuman-go/openhuman-go/services/search/redis"
)

type server struct {
	svc    *bus.Service
	domain *search.Service
	redis  *redisconn.Client
	nonces io.Closer // a nonce file (callauthmain), nil when none
}

// Start serves search on nc. With nothing configured the service still
// registers (so health checks see it) but offers no tool.
func Start(nc *nats.Conn, cfg config.Config, log *slog.Logger) (io.Closer, error) {
	opts := Options(cfg, log)
	s := &server{}
	var rc *redisconn.Client
	if cfg.Redis.URL != "" {
		client, err := redisconn.New(cfg.Redis.URL, cfg.Redis.Prefix, log)
		if err != nil {
			return nil, err
		}
		s.redis = client
		store := redis.New(client)
		opts.Cache, opts.Limiter = store, store
		rc = client
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if client.Ping(ctx) == nil { // a failure is logged by the client
			log.Info("search cache and rate limits are shared in Redis", "url", secrets.RedactURL(cfg.Redis.URL))
		}
		cancel()
	}
	opts.Observer = observer()
	s.domain = search.NewService(opts)
	tools := s.domain.Tools()
	if len(tools) == 0 {
		log.Info("no search provider is configured: web tools are not offered (enable SearXNG or set a provider's API key)")
	} else {
		log.Info("web tools", startupAttrs(s.domain)...)
	}
	// A search sent again, to another replica or after a restart, would
	// spend quota again.
	checks, closer, err := callauthmain.Checks(cfg, rc)
	s.nonces = closer
	if err != nil {
		s.closeRedis()
		return nil, err
	}
	svc, err := natsbus.Serve(nc, s.domain, telemetry.Version, checks, log)
	if err != nil {
		s.closeRedis()
		return nil, err
	}
	s.svc = svc
	watch(s.domain)
	return s, nil
}

// startupAttrs name the tools offered and, per role, only the providers
// configured for it, in the order they are tried.
func startupAttrs(svc *search.Service) []any {
	attrs := []any{"tools", strings.Join(svc.Tools(), ",")}
	if p := svc.SearchProviders(); len(p) > 0 {
		attrs = append(attrs, "search", strings.Join(p, ","))
	}
	if p := svc.AnswerProviders(); len(p) > 0 {
		attrs = append(attrs, "answer", strings.Join(p, ","))
	}
	return attrs
}

// Ready is nil unless a handler of the service is stuck past its
// deadline: its readiness then fails, so that it is restarted.
func (s *server) Ready() error { return s.Failing() }

// Failing is nil unless a handler of the service is stuck past its
// deadline (bus.Service.Failing).
func (s *server) Failing() error { return s.svc.Failing() }

// Close stops taking requests and waits for those in flight.
func (s *server) Close() error {
	err := s.svc.Stop()
	unwatch(s.domain)
	if cerr := s.closeRedis(); err == nil {
		err = cerr
	}
	return err
}

func (s *server) closeRedis() error {
	if s.nonces != nil {
		_ = s.nonces.Close()
	}
	if s.redis == nil {
		return nil
	}
	return s.redis.Close()
}

// Options builds the domain's options from cfg: the usable providers in
// their role order, rate limits, and the answer writer.
func Options(cfg config.Config, log *slog.Logger) search.Options {
	opts := search.Options{
		Phase:       tracing.Phase,
		Providers:   map[string]search.Provider{},
		Answerers:   map[string]search.Answerer{},
		SearchOrder: cfg.Search.Roles.Search,
		AnswerOrder: cfg.Search.Roles.Answer,
		CacheTTL:    cfg.Search.CacheTTLMinutes.D(),
		Limits:      map[string]search.Limit{},
		Logger:      log,
	}
	for _, name := range cfg.UsableSearchProviders() {
		p := cfg.Search.Providers[name]
		timeout := p.TimeoutSeconds.D()
		switch name {
		case "searxng":
			opts.Providers[name] = providers.NewSearXNG(cfg.SearXNG.BaseURL, cfg.SearXNG.DefaultLanguage, cfg.SearXNG.TimeoutSeconds.D())
			opts.SearXNG, opts.SearXNGMaxResults = name, cfg.SearXNG.MaxResults
		case "brave":
			opts.Providers[name] = providers.NewBrave(p.BaseURL, p.APIKey, timeout)
		case "exa":
			opts.Providers[name] = providers.NewExa(p.BaseURL, p.APIKey, timeout)
		case "tavily":
			t := providers.NewTavily(p.BaseURL, p.APIKey, timeout)
			opts.Providers[name], opts.Answerers[name] = t, t
		case "gemini":
			opts.Answerers[name] = providers.NewGemini(p.BaseURL, p.APIKey, p.Model, timeout)
		}
		if p.RatePerMinute > 0 {
			opts.Limits[name] = search.Limit{PerMinute: p.RatePerMinute, Burst: max(p.Burst, 1)}
		}
		if !slices.Contains(opts.SearchOrder, name) && !slices.Contains(opts.AnswerOrder, name) {
			log.Warn("search provider is configured but in no role: add it to [search.roles]", "provider", name)
		}
	}
	if cfg.LLM.Configured() {
		opts.Writer = llm.NewWriter(llm.New(cfg.LLM.BaseURL, cfg.LLM.Model, cfg.LLM.APIKey, cfg.LLM.Timeout()), search.AnswerInstructions)
	}
	return opts
}

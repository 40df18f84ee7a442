package searchmain

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/openhuman-go/openhuman-go/services/search"
)

// Search metrics. The names are a contract: dashboards depend on them.
var (
	providerCalls = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "openhuman_search_provider_calls_total",
		Help: "Calls to search providers, by outcome: ok, transient, auth, quota, malformed.",
	}, []string{"provider", "outcome"})
	providerDuration = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "openhuman_search_provider_duration_seconds",
		Help:    "Time a search provider took to answer (or fail).",
		Buckets: []float64{.05, .1, .25, .5, 1, 2, 4, 8, 16},
	}, []string{"provider"})
	fallbacks = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "openhuman_search_fallbacks_total",
		Help: "Searches that passed a provider over, by reason: failed, disabled, open, half_open, rate_limited.",
	}, []string{"provider", "reason"})
	cacheLookups = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "openhuman_search_cache_total",
		Help: "Search cache outcomes: hit, miss, error (the cache backend failed; the search went on without it).",
	}, []string{"result"})
	stateDesc = prometheus.NewDesc("openhuman_search_provider_state",
		"1 for each provider's current state: closed (healthy), half_open, open (skipped after failures), disabled (bad key, configuration or quota; until its re-probe).",
		[]string{"provider", "state"}, nil)
)

func observer() search.Observer {
	return search.Observer{
		ProviderCall: func(provider, outcome string, took time.Duration) {
			providerCalls.WithLabelValues(provider, outcome).Inc()
			providerDuration.WithLabelValues(provider).Observe(took.Seconds())
		},
		Fallback: func(provider, reason string) { fallbacks.WithLabelValues(provider, reason).Inc() },
		Cache:    func(result string) { cacheLookups.WithLabelValues(result).Inc() },
	}
}

// states reports the providers' states of the running services at scrape time.
type states struct {
	mu       sync.Mutex
	services map[*search.Service]bool
}

var running = &states{services: map[*search.Service]bool{}}

func init() { prometheus.MustRegister(running) }

func watch(s *search.Service)   { running.mu.Lock(); running.services[s] = true; running.mu.Unlock() }
func unwatch(s *search.Service) { running.mu.Lock(); delete(running.services, s); running.mu.Unlock() }

func (c *states) Describe(ch chan<- *prometheus.Desc) { ch <- stateDesc }

func (c *states) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[string]bool{}
	for s := range c.services {
		for provider, state := range s.States() {
			for _, st := range []string{search.StateClosed, search.StateHalfOpen, search.StateOpen, search.StateDisabled} {
				key := provider + "\x00" + st
				if seen[key] {
					continue // the first service's view wins; one process runs one search service
				}
				seen[key] = true
				v := 0.0
				if st == state {
					v = 1
				}
				ch <- prometheus.MustNewConstMetric(stateDesc, prometheus.GaugeValue, v, provider, st)
			}
		}
	}
}

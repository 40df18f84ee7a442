package memorymain

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// Embedding progress metrics, read from the running services at scrape
// time, as the store's own sizes are (sqlite/metrics.go). The names are a
// contract: dashboards depend on them. The last error's text is in
// /readyz (memory_store.embedding), not in a label.
var (
	pendingDesc = prometheus.NewDesc("openhuman_memory_embedding_pending",
		"Items waiting for a vector of the active embedding model.", []string{"model"}, nil)
	failuresDesc = prometheus.NewDesc("openhuman_memory_embedding_failures",
		"Embedding attempts that failed in a row; 0 once one succeeds.", []string{"model"}, nil)
	backoffDesc = prometheus.NewDesc("openhuman_memory_embedding_backoff_seconds",
		"Wait before the next embedding attempt while the embedder fails; 0 when it works.", []string{"model"}, nil)
	lastErrorDesc = prometheus.NewDesc("openhuman_memory_embedding_last_error_timestamp_seconds",
		"When embedding last failed (Unix time); 0 when it has not since the service started.", []string{"model"}, nil)
)

type progressCollector struct {
	mu       sync.Mutex
	services map[*memory.Service]bool
}

var running = &progressCollector{services: map[*memory.Service]bool{}}

func init() { prometheus.MustRegister(running) }

func (c *progressCollector) add(s *memory.Service) { c.mu.Lock(); c.services[s] = true; c.mu.Unlock() }
func (c *progressCollector) remove(s *memory.Service) {
	c.mu.Lock()
	delete(c.services, s)
	c.mu.Unlock()
}

func (c *progressCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- pendingDesc
	ch <- failuresDesc
	ch <- backoffDesc
	ch <- lastErrorDesc
}

func (c *progressCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	services := make([]*memory.Service, 0, len(c.services))
	for s := range c.services {
		services = append(services, s)
	}
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Several services in one process (tests) may share a model: sum
	// what can be summed, keep the worst of the rest.
	type row struct{ pending, failures, backoff, lastErr float64 }
	rows := map[string]*row{}
	for _, s := range services {
		p := s.EmbeddingProgress(ctx)
		if p == nil {
			continue
		}
		r := rows[p.Model]
		if r == nil {
			r = &row{}
			rows[p.Model] = r
		}
		r.pending += float64(max(p.Pending, 0))
		r.failures = max(r.failures, float64(p.Failures))
		r.backoff = max(r.backoff, p.BackoffSeconds)
		if t, err := time.Parse(time.RFC3339, p.LastErrorAt); err == nil {
			r.lastErr = max(r.lastErr, float64(t.Unix()))
		}
	}
	for model, r := range rows {
		ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, r.pending, model)
		ch <- prometheus.MustNewConstMetric(failuresDesc, prometheus.GaugeValue, r.failures, model)
		ch <- prometheus.MustNewConstMetric(backoffDesc, prometheus.GaugeValue, r.backoff, model)
		ch <- prometheus.MustNewConstMetric(lastErrorDesc, prometheus.GaugeValue, r.lastErr, model)
	}
}

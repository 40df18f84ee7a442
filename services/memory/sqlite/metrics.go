package sqlite

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Memory size metrics, read from the open stores at scrape time so they are
// never stale. The names are a contract: dashboards depend on them.
var (
	itemsDesc = prometheus.NewDesc("openhuman_memory_items", "Items stored in memory, by kind.", []string{"kind"}, nil)
	bytesDesc = prometheus.NewDesc("openhuman_memory_bytes", "Bytes on disk of the memory database, WAL included.", nil, nil)
	// Against openhuman_memory_items, the vectors of the active model show
	// how far a (re-)embedding has come.
	vectorsDesc = prometheus.NewDesc("openhuman_memory_vectors", "Stored vectors, by embedding model.", []string{"model"}, nil)
)

type collector struct {
	mu     sync.Mutex
	stores map[*Store]bool
}

var openStores = &collector{stores: map[*Store]bool{}}

func init() { prometheus.MustRegister(openStores) }

func (c *collector) add(s *Store)    { c.mu.Lock(); c.stores[s] = true; c.mu.Unlock() }
func (c *collector) remove(s *Store) { c.mu.Lock(); delete(c.stores, s); c.mu.Unlock() }

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- itemsDesc
	ch <- bytesDesc
	ch <- vectorsDesc
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	stores := make([]*Store, 0, len(c.stores))
	for s := range c.stores {
		stores = append(stores, s)
	}
	c.mu.Unlock()
	counts := map[string]float64{"document": 0, "conversation": 0, "learning": 0}
	vectors := map[string]float64{}
	var size float64
	for _, s := range stores {
		for kind, n := range s.count(`SELECT kind, count(*) FROM items GROUP BY kind`) {
			counts[kind] += float64(n)
		}
		for model, n := range s.count(`SELECT model, count(*) FROM item_vectors GROUP BY model`) {
			vectors[model] += float64(n)
		}
		for _, f := range []string{s.Path, s.Path + "-wal"} {
			if fi, err := os.Stat(f); err == nil {
				size += float64(fi.Size())
			}
		}
	}
	for kind, n := range counts {
		ch <- prometheus.MustNewConstMetric(itemsDesc, prometheus.GaugeValue, n, kind)
	}
	ch <- prometheus.MustNewConstMetric(bytesDesc, prometheus.GaugeValue, size)
	for model, n := range vectors {
		ch <- prometheus.MustNewConstMetric(vectorsDesc, prometheus.GaugeValue, n, model)
	}
}

// count runs a "SELECT label, count(*) ... GROUP BY label" query.
func (s *Store) count(query string) map[string]int64 {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out := map[string]int64{}
	rows, err := s.read.QueryContext(ctx, query)
	if err != nil {
		return out
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var n int64
		if rows.Scan(&kind, &n) == nil {
			out[kind] = n
		}
	}
	return out
}

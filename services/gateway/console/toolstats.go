package console

import (
	"math"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// The tools page's figures come from this process's own Prometheus
// metrics, the series /metrics serves: openhuman_tool_calls_total and
// openhuman_tool_call_duration_seconds. Those count since the process
// started; a snapshot taken every minute and kept for an hour turns them
// into the last hour's calls, errors and latency quantiles (as
// Prometheus's increase() and histogram_quantile() would), and into
// per-minute series for the charts.

const (
	callsMetric    = "openhuman_tool_calls_total"
	durationMetric = "openhuman_tool_call_duration_seconds"
	statsWindow    = time.Hour
	sampleEvery    = time.Minute
)

// toolCounts is one tool's counters at one moment, summed over transports.
type toolCounts struct {
	calls, errors float64
	// buckets are cumulative counts at each bound (bounds), as the
	// histogram keeps them.
	buckets []float64
}

type snapshot struct {
	at    time.Time
	tools map[string]toolCounts
}

type toolStats struct {
	g      prometheus.Gatherer
	now    func() time.Time
	mu     sync.Mutex
	snaps  []snapshot // oldest first, a minute apart
	bounds []float64
	done   chan struct{}
	once   sync.Once
}

func newToolStats(g prometheus.Gatherer, now func() time.Time) *toolStats {
	return &toolStats{g: g, now: now, done: make(chan struct{})}
}

// start takes a snapshot now and one every minute until stop.
func (s *toolStats) start() {
	s.sample()
	go func() {
		t := time.NewTicker(sampleEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				s.sample()
			case <-s.done:
				return
			}
		}
	}()
}

func (s *toolStats) stop() { s.once.Do(func() { close(s.done) }) }

// sample keeps a snapshot, dropping those older than the window needs.
func (s *toolStats) sample() {
	snap, bounds := s.gather()
	s.mu.Lock()
	defer s.mu.Unlock()
	if bounds != nil {
		s.bounds = bounds
	}
	s.snaps = append(s.snaps, snap)
	for len(s.snaps) > 1 && snap.at.Sub(s.snaps[1].at) >= statsWindow {
		s.snaps = s.snaps[1:]
	}
}

// serverFault mirrors the registry's health: a caller's bad arguments, a
// refusal or an unknown id are not the tool failing.
var notErrors = map[string]bool{"ok": true, "invalid_request": true, "denied": true, "not_found": true}

func (s *toolStats) gather() (snapshot, []float64) {
	snap := snapshot{at: s.now(), tools: map[string]toolCounts{}}
	families, err := s.g.Gather()
	if err != nil && len(families) == 0 {
		return snap, nil
	}
	var bounds []float64
	for _, mf := range families {
		switch mf.GetName() {
		case callsMetric:
			for _, m := range mf.GetMetric() {
				tool, outcome := label(m, "tool"), label(m, "outcome")
				tc := snap.tools[tool]
				v := m.GetCounter().GetValue()
				tc.calls += v
				if !notErrors[outcome] {
					tc.errors += v
				}
				snap.tools[tool] = tc
			}
		case durationMetric:
			for _, m := range mf.GetMetric() {
				tool := label(m, "tool")
				tc := snap.tools[tool]
				h := m.GetHistogram()
				if bounds == nil {
					for _, b := range h.GetBucket() {
						bounds = append(bounds, b.GetUpperBound())
					}
					bounds = append(bounds, math.Inf(1))
				}
				if tc.buckets == nil {
					tc.buckets = make([]float64, len(bounds))
				}
				for i, b := range h.GetBucket() {
					if i < len(tc.buckets)-1 {
						tc.buckets[i] += float64(b.GetCumulativeCount())
					}
				}
				tc.buckets[len(tc.buckets)-1] += float64(h.GetSampleCount())
				snap.tools[tool] = tc
			}
		}
	}
	return snap, bounds
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// toolFigures are one tool's last hour.
type toolFigures struct {
	Calls     float64
	Errors    float64
	ErrorRate float64
	// P50 and P95 are latencies in seconds; Latency is false when no
	// call was measured in the window.
	P50, P95 float64
	Latency  bool
	// PerMinute are the calls of each minute of the window, oldest
	// first, the current minute last; ErrorsPerMinute likewise.
	PerMinute, ErrorsPerMinute []float64
}

// figures computes every tool's last hour from the snapshots and the
// counters as they are now. A process younger than the window reports
// since it started.
func (s *toolStats) figures() map[string]toolFigures {
	cur, bounds := s.gather()
	s.mu.Lock()
	snaps := append([]snapshot(nil), s.snaps...)
	if bounds == nil {
		bounds = s.bounds
	}
	s.mu.Unlock()
	var base snapshot
	for i := len(snaps) - 1; i >= 0; i-- {
		base = snaps[i]
		if cur.at.Sub(snaps[i].at) >= statsWindow {
			break
		}
	}
	out := map[string]toolFigures{}
	for tool, now := range cur.tools {
		then := base.tools[tool]
		f := toolFigures{Calls: now.calls - then.calls, Errors: now.errors - then.errors}
		if f.Calls > 0 {
			f.ErrorRate = f.Errors / f.Calls
		}
		if d := diff(now.buckets, then.buckets); len(d) > 0 && d[len(d)-1] > 0 {
			f.P50, f.P95, f.Latency = quantile(0.5, bounds, d), quantile(0.95, bounds, d), true
		}
		// Minutes: between consecutive snapshots, then up to now.
		series := append(snaps[:len(snaps):len(snaps)], cur)
		for i := 1; i < len(series); i++ {
			a, b := series[i-1].tools[tool], series[i].tools[tool]
			f.PerMinute = append(f.PerMinute, math.Max(0, b.calls-a.calls))
			f.ErrorsPerMinute = append(f.ErrorsPerMinute, math.Max(0, b.errors-a.errors))
		}
		if n := len(f.PerMinute); n > 60 {
			f.PerMinute, f.ErrorsPerMinute = f.PerMinute[n-60:], f.ErrorsPerMinute[n-60:]
		}
		out[tool] = f
	}
	return out
}

// diff is now's cumulative buckets less then's (then may be missing).
func diff(now, then []float64) []float64 {
	out := make([]float64, len(now))
	for i := range now {
		out[i] = now[i]
		if i < len(then) {
			out[i] -= then[i]
		}
	}
	return out
}

// quantile estimates the q-quantile from cumulative bucket counts at
// bounds (the last +Inf, its count the total), interpolating linearly
// inside the bucket it falls in, as Prometheus's histogram_quantile does:
// one in the +Inf bucket is the highest finite bound.
func quantile(q float64, bounds, cum []float64) float64 {
	if len(cum) < 2 || len(bounds) != len(cum) {
		return 0
	}
	total := cum[len(cum)-1]
	rank := q * total
	i := sort.Search(len(cum), func(i int) bool { return cum[i] >= rank })
	if i >= len(bounds)-1 {
		return bounds[len(bounds)-2]
	}
	lower, below := 0.0, 0.0
	if i > 0 {
		lower, below = bounds[i-1], cum[i-1]
	}
	in := cum[i] - below
	if in <= 0 {
		return bounds[i]
	}
	return lower + (bounds[i]-lower)*(rank-below)/in
}

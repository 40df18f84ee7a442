package console

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestQuantile(t *testing.T) {
	bounds := []float64{0.001, 0.01, 0.1, math.Inf(1)}
	for _, tc := range []struct {
		q    float64
		cum  []float64
		want float64
	}{
		{0.5, []float64{0, 10, 10, 10}, 0.0055},    // all in (1 ms, 10 ms]: the middle of it
		{0.95, []float64{90, 90, 100, 100}, 0.055}, // the top tenth in (10 ms, 100 ms]
		{0.5, []float64{10, 10, 10, 10}, 0.0005},   // the first bucket starts at 0
		{0.99, []float64{0, 0, 0, 5}, 0.1},         // past the last bound: that bound
	} {
		if got := quantile(tc.q, bounds, tc.cum); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("quantile(%v, %v) = %v, want %v", tc.q, tc.cum, got, tc.want)
		}
	}
}

// TestToolFigures reads a registry like the process's: the last hour's
// calls and errors of a tool are the counters now less those an hour ago,
// and a refusal is not an error.
func TestToolFigures(t *testing.T) {
	reg := prometheus.NewRegistry()
	calls := prometheus.NewCounterVec(prometheus.CounterOpts{Name: callsMetric}, []string{"tool", "transport", "outcome"})
	dur := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: durationMetric, Buckets: []float64{0.001, 0.01, 0.1}}, []string{"tool", "transport"})
	reg.MustRegister(calls, dur)
	now := time.Unix(1_800_000_000, 0)
	s := newToolStats(reg, func() time.Time { return now })

	calls.WithLabelValues("memory.fetch", "mcp_http", "ok").Add(100) // before the window
	s.sample()
	for m := 1; m <= 61; m++ {
		now = now.Add(time.Minute)
		if m == 61 {
			calls.WithLabelValues("memory.fetch", "json_rpc", "ok").Add(6)
			calls.WithLabelValues("memory.fetch", "mcp_http", "unavailable").Add(2)
			calls.WithLabelValues("memory.fetch", "mcp_http", "denied").Add(2)
			for range 10 {
				dur.WithLabelValues("memory.fetch", "json_rpc").Observe(0.005)
			}
		}
		s.sample()
	}
	f := s.figures()["memory.fetch"]
	if f.Calls != 10 || f.Errors != 2 || f.ErrorRate != 0.2 {
		t.Errorf("calls %v errors %v rate %v", f.Calls, f.Errors, f.ErrorRate)
	}
	if !f.Latency || math.Abs(f.P50-0.0055) > 1e-9 {
		t.Errorf("p50 %v (%v)", f.P50, f.Latency)
	}
	if len(f.PerMinute) != 60 || f.PerMinute[len(f.PerMinute)-2] != 10 || f.ErrorsPerMinute[len(f.ErrorsPerMinute)-2] != 2 {
		t.Errorf("per minute %v / %v", f.PerMinute, f.ErrorsPerMinute)
	}
	svg := string(chart("memory.fetch", f.PerMinute, f.ErrorsPerMinute))
	if !strings.Contains(svg, `aria-label="memory.fetch: 10 calls in the last 60 minutes, at most 10 a minute"`) || strings.Count(svg, `class="errors"`) != 1 {
		t.Errorf("chart %s", svg)
	}
}

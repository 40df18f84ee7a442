package telemetry

import (
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// DurationBuckets span 100 µs to 30 s: a cached read and a slow agent run
// both land in a bucket that tells them apart.
var DurationBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// Tool call metrics. Their names and labels are a contract: dashboards and
// alerts depend on them.
var (
	toolCalls = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "openhuman_tool_calls_total",
		Help: "Tool calls by tool, transport and outcome (ok, or the lowercased error code such as invalid_request or unavailable).",
	}, []string{"tool", "transport", "outcome"})
	toolDuration = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "openhuman_tool_call_duration_seconds",
		Help:    "Tool call latency, from arrival at the gateway to the answer.",
		Buckets: DurationBuckets,
	}, []string{"tool", "transport"})
	toolInFlight = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "openhuman_tool_calls_in_flight",
		Help: "Tool calls being handled right now.",
	}, []string{"tool"})
	buildInfo = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "openhuman_build_info",
		Help: "Always 1; labels say which binary and version is running.",
	}, []string{"binary", "version", "goversion"})
)

// Outcome is the outcome label of a call that returned err.
func Outcome(err error) string {
	if err == nil {
		return "ok"
	}
	return strings.ToLower(string(contract.ErrorCode(err)))
}

// ToolCall starts measuring one tool call; call the returned func with the
// call's error when it is answered. tool must be a known tool name (or
// "unknown"): label values come from the catalog, never from raw input.
func ToolCall(tool, transport string) func(err error) {
	if transport == "" {
		transport = "unknown"
	}
	start := time.Now()
	inFlight := toolInFlight.WithLabelValues(tool)
	inFlight.Inc()
	return func(err error) {
		inFlight.Dec()
		toolDuration.WithLabelValues(tool, transport).Observe(time.Since(start).Seconds())
		toolCalls.WithLabelValues(tool, transport, Outcome(err)).Inc()
	}
}

// SetBuild records which binary this process is.
func SetBuild(binary string) {
	buildInfo.WithLabelValues(binary, Version, runtime.Version()).Set(1)
}

// MetricsHandler serves every metric of this process in Prometheus's text format.
func MetricsHandler() http.Handler {
	return promhttp.HandlerFor(prometheus.DefaultGatherer, promhttp.HandlerOpts{ErrorLog: nil})
}

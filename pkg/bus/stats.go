package bus

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
)

// endpointStats counts what one endpoint did. micro times a handler from
// the moment its message arrives until the handler returns, and learns of
// an error only from a reply sent through its Request before that; our
// handlers hand each request to a worker and reply from there (a slow call
// must not hold up the endpoint's queue), so micro's own processing_time
// measures the hand-off and its num_errors stays 0. The true figures are
// kept here and published as each endpoint's `data` in $SRV.STATS.
type endpointStats struct {
	// The endpoint's Prometheus series, looked up once rather than by
	// label values on every request.
	inFlight prometheus.Gauge
	duration prometheus.Observer
	ok       prometheus.Counter

	mu        sync.Mutex
	requests  int
	errors    int
	lastError string
	busy      time.Duration
}

func newEndpointStats(service, method string) *endpointStats {
	return &endpointStats{
		inFlight: serviceInFlight.WithLabelValues(service),
		duration: serviceDuration.WithLabelValues(service, method),
		ok:       serviceRequests.WithLabelValues(service, method, telemetry.Outcome(nil)),
	}
}

func (st *endpointStats) record(took time.Duration, err *contract.Error) {
	st.mu.Lock()
	st.requests++
	st.busy += took
	if err != nil {
		st.errors++
		st.lastError = string(err.Code) + ": " + err.Message
	}
	st.mu.Unlock()
}

// EndpointStats is the `data` of an endpoint in $SRV.STATS: requests
// answered, those answered with an error, and the time spent answering
// them (nanoseconds, as micro reports its own).
type EndpointStats struct {
	Answered              int           `json:"answered"`
	Errors                int           `json:"errors"`
	LastError             string        `json:"last_error,omitempty"`
	ProcessingTime        time.Duration `json:"processing_time"`
	AverageProcessingTime time.Duration `json:"average_processing_time"`
}

// snapshot is what the endpoint did so far.
func (st *endpointStats) snapshot() EndpointStats {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := EndpointStats{Answered: st.requests, Errors: st.errors, LastError: st.lastError, ProcessingTime: st.busy}
	if st.requests > 0 {
		out.AverageProcessingTime = st.busy / time.Duration(st.requests)
	}
	return out
}

package bus

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
)

// Service-side request metrics, one series per service method. The names
// are a contract: dashboards depend on them.
var (
	serviceRequests = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "openhuman_service_requests_total",
		Help: "Requests a service handled over NATS, by outcome (ok or the lowercased error code).",
	}, []string{"service", "method", "outcome"})
	serviceDuration = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "openhuman_service_request_duration_seconds",
		Help:    "Time a service took to handle a request, from receipt to reply.",
		Buckets: telemetry.DurationBuckets,
	}, []string{"service", "method"})
	replicasLost = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "openhuman_bus_replica_lost_total",
		Help: "Calls whose replica stopped answering or refused them while stopping, by whether they were sent again to another replica (retried) or failed.",
	}, []string{"service", "method", "action"})
	repliesRefused = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "openhuman_service_replies_refused_total",
		Help: "Requests a service dropped unanswered because their reply subject is not an _INBOX subject.",
	}, []string{"service", "method"})
	repliesDropped = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "openhuman_bus_replies_dropped_total",
		Help: "Messages to a signed call's reply subject that a caller dropped as not its service's answer: not sealed (unsealed), sealed for another request or altered (not_for_this_call), a heartbeat not sealed for the call (heartbeat), or a no-responders status once the service held the call (no_responders).",
	}, []string{"reason"})
	serviceInFlight = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "openhuman_service_requests_in_flight",
		Help: "Requests a service is handling right now.",
	}, []string{"service"})
)

// replicaLost counts a call whose replica went away.
func replicaLost(ep contract.Endpoint, retried bool) {
	action := "failed"
	if retried {
		action = "retried"
	}
	replicasLost.WithLabelValues(ep.Service, ep.Method, action).Inc()
}

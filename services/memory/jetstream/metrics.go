package jetstream

import "github.com/prometheus/client_golang/prometheus"

// Replication metrics. The names are a contract: dashboards depend on them.
var (
	appliedSeq = prometheus.NewGauge(prometheus.GaugeOpts{Name: "openhuman_memory_replication_applied_seq",
		Help: "Stream sequence of the last memory write this replica applied."})
	lag = prometheus.NewGauge(prometheus.GaugeOpts{Name: "openhuman_memory_replication_lag",
		Help: "Memory writes in the stream this replica has not applied yet, as of its last applied one."})
	applyErrors = prometheus.NewCounter(prometheus.CounterOpts{Name: "openhuman_memory_replication_apply_errors_total",
		Help: "Failed attempts to apply a memory write from the stream."})
	poisoned = prometheus.NewCounter(prometheus.CounterOpts{Name: "openhuman_memory_replication_poison_total",
		Help: "Memory writes skipped because they could not be applied (logged at error level)."})
	snapshots = prometheus.NewCounter(prometheus.CounterOpts{Name: "openhuman_memory_replication_snapshots_total",
		Help: "Memory snapshots uploaded to the object store."})
	snapshotsDropped = prometheus.NewCounter(prometheus.CounterOpts{Name: "openhuman_memory_replication_snapshots_dropped_total",
		Help: "Memory snapshots deleted because a forget made them hold forgotten text."})
	gapReadErrors = prometheus.NewCounter(prometheus.CounterOpts{Name: "openhuman_memory_replication_gap_read_errors_total",
		Help: "Failed reads of an event a replica's consumer skipped past; the replica applies nothing after it until the read succeeds."})
)

func init() {
	prometheus.MustRegister(appliedSeq, lag, applyErrors, poisoned, snapshots, snapshotsDropped, gapReadErrors)
}

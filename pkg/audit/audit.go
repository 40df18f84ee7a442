// Package audit keeps the trail of write-capable calls: every memory.learn
// and memory.forget made over MCP or HTTP, and every side-effecting call a
// sub-agent makes, whether it succeeded or was refused. A row says who
// called what, a summary of the arguments that never holds their content,
// an HMAC of the id it produced (key.go), and how it ended.
//
// The backends are adapters beside it: a SQLite table (package sqlite, the
// embedded default, <home>/audit.db) and a Redis stream capped by length
// (package redis, when Redis is configured, so replicas share one trail).
// A backend that fails passes the row to a fallback through
// RecordFallback, so an audit row is never dropped silently; which backend
// and which fallback is the binaries' choice (package auditmain).
package audit

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Row is one audited call.
type Row struct {
	TimestampMS int64  `json:"timestamp_ms"`
	Client      string `json:"client"` // provenance: mcp:cursor, agent:note_taker, ...
	// Token names the HTTP bearer token the call came with, if any.
	Token       string         `json:"token,omitempty"`
	ToolName    string         `json:"tool_name"`
	ArgsSummary map[string]any `json:"args_summary"`
	ResultingID string         `json:"resulting_id,omitempty"`
	Success     bool           `json:"success"`
	// ErrorMessage says why the call failed or was refused.
	ErrorMessage string `json:"error_message,omitempty"`
}

// Log stores rows. Recent returns the newest first; with failures only
// the unsuccessful ones (refusals and errors).
type Log interface {
	Record(ctx context.Context, r Row) error
	Recent(ctx context.Context, n int, failuresOnly bool) ([]Row, error)
	// Backend names where rows go, for diagnostics.
	Backend() string
	Close() error
}

var (
	rowsTotal = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "openhuman_audit_rows_total",
		Help: "Audit rows written, by outcome: success or failure (refused or failed calls).",
	}, []string{"outcome"})
	errorsTotal = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "openhuman_audit_errors_total",
		Help: "Audit rows a backend could not take, by what became of them: fallback (Redis failed; the row went to the SQLite file) or lost (written to the error log only).",
	}, []string{"result"})
)

// Recorder stamps rows, counts them and writes them to a Log; a row the log
// cannot take is logged with its summary so that it survives in the logs.
type Recorder struct {
	log  Log
	slog *slog.Logger
	now  func() time.Time
	key  []byte
}

// NewRecorder records into l. A row's ResultingID is replaced by its
// Pseudonym under key (LoadKey) before any backend sees it; with no key
// none is kept.
func NewRecorder(l Log, log *slog.Logger, key []byte) *Recorder {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Recorder{log: l, slog: log, now: time.Now, key: key}
}

// Record writes r, stamping it now when it has no time.
func (rec *Recorder) Record(ctx context.Context, r Row) {
	if r.TimestampMS == 0 {
		r.TimestampMS = rec.now().UnixMilli()
	}
	if r.ArgsSummary == nil {
		r.ArgsSummary = map[string]any{}
	}
	r.ResultingID = Pseudonym(rec.key, r.ResultingID)
	outcome := "success"
	if !r.Success {
		outcome = "failure"
	}
	rowsTotal.WithLabelValues(outcome).Inc()
	if err := rec.log.Record(context.WithoutCancel(ctx), r); err != nil {
		errorsTotal.WithLabelValues("lost").Inc()
		rec.slog.Error("audit row not stored", "err", err, "tool", r.ToolName, "client", r.Client, "token", r.Token, "success", r.Success, "resulting_id", r.ResultingID, "error_message", r.ErrorMessage)
	}
}

// Log is the log rows go to.
func (rec *Recorder) Log() Log { return rec.log }

// Close closes the recorder's log.
func (rec *Recorder) Close() error { return rec.log.Close() }

// RecordFallback records r in fallback because the backend meant for it
// failed with cause. The diversion is counted, so a failing shared backend
// shows on dashboards even though no row is lost; only when fallback fails
// too is there an error (both causes).
func RecordFallback(ctx context.Context, fallback Log, r Row, cause error) error {
	errorsTotal.WithLabelValues("fallback").Inc()
	if err := fallback.Record(ctx, r); err != nil {
		return errors.Join(cause, err)
	}
	return nil
}

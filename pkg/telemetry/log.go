// Package telemetry holds what every binary reports about itself: structured
// logs (log/slog, always to stderr, because stdout belongs to MCP in mcp mode)
// and the Prometheus metrics every binary shares (tool calls, build info).
package telemetry

import (
	"io"
	"log/slog"
)

// NewLogger returns a text logger writing to w (stderr outside tests) at the
// named level; verbose forces debug.
func NewLogger(w io.Writer, level string, verbose bool) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	if verbose {
		l = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}

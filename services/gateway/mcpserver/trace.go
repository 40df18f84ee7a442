package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/openhuman-go/openhuman-go/pkg/tracing"
)

// The _meta keys of a W3C trace context (MCP 2026-07-28, SEP-414). Any
// request may carry them, of any revision.
const (
	MetaTraceparent = "traceparent"
	MetaTracestate  = "tracestate"
	MetaBaggage     = "baggage"
)

// traceMeta is the trace context a request's _meta carries, as sent.
type traceMeta struct {
	parent, state, baggage string
}

// readTraceMeta reads the trace context keys of a decoded _meta; a value
// that is not a string is ignored, as a malformed traceparent is by the
// propagator.
func readTraceMeta(meta map[string]json.RawMessage) traceMeta {
	var t traceMeta
	if meta[MetaTraceparent] == nil {
		return t
	}
	_ = json.Unmarshal(meta[MetaTraceparent], &t.parent)
	_ = json.Unmarshal(meta[MetaTracestate], &t.state)
	_ = json.Unmarshal(meta[MetaBaggage], &t.baggage)
	return t
}

// context returns ctx carrying t, so that the tool call's span is the
// child of the client's; ctx as it is when t is empty (an HTTP request's
// traceparent header, read by the transport, then stays the parent).
func (t traceMeta) context(ctx context.Context) context.Context {
	return tracing.FromMeta(ctx, t.parent, t.state, t.baggage)
}

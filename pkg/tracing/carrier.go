package tracing

import (
	"context"
	"net/http"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

// traceparent is the W3C header (and NATS header, and _meta key) that
// carries a span's context.
const traceparent = "traceparent"

// natsCarrier lets a propagator read and write a NATS message's headers.
// Keys are kept as the propagator writes them (traceparent, tracestate):
// NATS headers are case-sensitive, and both ends use this carrier.
type natsCarrier nats.Header

var _ propagation.TextMapCarrier = natsCarrier(nil)

func (c natsCarrier) Get(key string) string {
	if v := c[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func (c natsCarrier) Set(key, value string) { c[key] = []string{value} }

func (c natsCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// Inject writes the trace context of ctx into hdr (nothing when ctx holds
// no sampled-or-not span context).
func Inject(ctx context.Context, hdr nats.Header) {
	otel.GetTextMapPropagator().Inject(ctx, natsCarrier(hdr))
}

// Extract returns ctx carrying the trace context hdr holds, if any.
func Extract(ctx context.Context, hdr nats.Header) context.Context {
	if hdr[traceparent] == nil {
		return ctx // nothing to continue: skip the propagator
	}
	return otel.GetTextMapPropagator().Extract(ctx, natsCarrier(hdr))
}

// FromMeta returns ctx carrying the trace context of an MCP request's
// _meta (traceparent, tracestate, baggage: MCP 2026-07-28), if any.
func FromMeta(ctx context.Context, parent, tracestate, baggage string) context.Context {
	if parent == "" {
		return ctx
	}
	c := propagation.MapCarrier{"traceparent": parent}
	if tracestate != "" {
		c["tracestate"] = tracestate
	}
	if baggage != "" {
		c["baggage"] = baggage
	}
	return otel.GetTextMapPropagator().Extract(ctx, c)
}

// Middleware reads the W3C trace context of each HTTP request's headers
// (traceparent, tracestate, baggage) into its context, so that the spans
// its handlers start are the caller's children.
func Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(traceparent) != "" {
			r = r.WithContext(otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header)))
		}
		next.ServeHTTP(w, r)
	})
}

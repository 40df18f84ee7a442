package tracing_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"github.com/openhuman-go/openhuman-go/pkg/tracing"
)

// restoreGlobals puts back the global provider and propagator Setup
// replaces.
func restoreGlobals(t *testing.T) {
	tp, prop := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	t.Cleanup(func() {
		if otel.GetTracerProvider() != tp {
			otel.SetTracerProvider(tp)
		}
		otel.SetTextMapPropagator(prop)
	})
}

// TestNoEndpointNoSpans: without an OTLP endpoint, spans record nothing.
func TestNoEndpointNoSpans(t *testing.T) {
	restoreGlobals(t)
	t.Setenv(tracing.EnvEndpoint, "")
	t.Setenv(tracing.EnvTracesEndpoint, "")
	shutdown, err := tracing.Setup(t.Context(), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, span := tracing.Tracer().Start(t.Context(), "nothing")
	span.End()
	if span.IsRecording() || span.SpanContext().IsValid() {
		t.Error("a span records with no endpoint configured")
	}
	ctx, done := tracing.Phase(t.Context(), "phase")
	done(nil)
	if trace.SpanFromContext(ctx).SpanContext().IsValid() {
		t.Error("a phase started a span with no endpoint configured")
	}
	if err := shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// TestExportsOverOTLP: with an endpoint, spans reach it over OTLP/HTTP by
// the time shutdown returns.
func TestExportsOverOTLP(t *testing.T) {
	restoreGlobals(t)
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/v1/traces" {
			posts.Add(1)
		}
	}))
	defer srv.Close()
	t.Setenv(tracing.EnvEndpoint, srv.URL)
	t.Setenv(tracing.EnvTracesEndpoint, "")
	shutdown, err := tracing.Setup(t.Context(), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, span := tracing.Tracer().Start(t.Context(), "exported")
	span.End()
	if err := shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if posts.Load() == 0 {
		t.Error("no spans were posted to /v1/traces")
	}
}

// TestNATSHeaders: a span context injected into NATS headers is extracted
// as the same one.
func TestNATSHeaders(t *testing.T) {
	restoreGlobals(t)
	t.Setenv(tracing.EnvEndpoint, "")
	t.Setenv(tracing.EnvTracesEndpoint, "")
	if _, err := tracing.Setup(t.Context(), "test", nil); err != nil {
		t.Fatal(err)
	}
	ctx := tracing.FromMeta(context.Background(), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "", "")
	hdr := nats.Header{}
	tracing.Inject(ctx, hdr)
	if got := hdr.Get("traceparent"); got != "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" {
		t.Fatalf("traceparent header %q", got)
	}
	got := trace.SpanContextFromContext(tracing.Extract(context.Background(), hdr))
	if got.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || !got.IsRemote() {
		t.Errorf("extracted %v", got)
	}
}

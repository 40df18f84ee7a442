// Package tracing wraps OpenTelemetry tracing for every binary, so that one
// tool call is one trace: the gateway's span, the bus hop, and the spans of
// the service replica that answered, whichever process each ran in.
//
// A W3C trace context enters at the edge (an MCP request's
// _meta.traceparent, an HTTP traceparent header), rides NATS message
// headers (Inject, Extract) and is picked up by every service. Setup turns
// export on only when an OTLP endpoint is configured by the standard
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; without
// one the tracer provider is OpenTelemetry's no-op, whose spans record
// nothing: all the tracing work of one tool call then costs under a
// microsecond and a dozen small allocations (BenchmarkCallOverheadOff),
// against tens of microseconds for the call itself.
//
// The trace context is never trusted for anything: it is not signed, and it
// only links spans.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
)

// The environment variables OpenTelemetry's exporters read.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvServiceName    = "OTEL_SERVICE_NAME"
)

// instrumentation names the tracer of this code base's spans.
const instrumentation = "github.com/openhuman-go/openhuman-go"

// Tracer is the tracer every package of this code base starts spans with.
// It follows whatever provider Setup (or a test) installs.
func Tracer() trace.Tracer { return otel.Tracer(instrumentation) }

// Enabled reports whether an OTLP endpoint is configured in env.
func Enabled(getenv func(string) string) bool {
	return strings.TrimSpace(getenv(EnvEndpoint)) != "" || strings.TrimSpace(getenv(EnvTracesEndpoint)) != ""
}

// Setup installs the W3C trace-context propagator and, when an OTLP
// endpoint is configured, a tracer provider exporting over OTLP/HTTP under
// service (OTEL_SERVICE_NAME overrides it). The returned func flushes and
// stops the exporter; call it on the way out. Without an endpoint nothing
// is exported and the func does nothing.
func Setup(ctx context.Context, service string, log *slog.Logger) (shutdown func(context.Context) error, err error) {
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	if !Enabled(os.Getenv) {
		// The no-op provider itself, not the global stand-in that waits
		// for one: its tracers cost no lock and no lookup.
		otel.SetTracerProvider(noop.NewTracerProvider())
		return func(context.Context) error { return nil }, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("tracing: OTLP exporter: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(newResource(service)))
	otel.SetTracerProvider(tp)
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		if log != nil {
			log.Warn("tracing: exporting spans failed", "err", err)
		}
	}))
	if log != nil {
		log.Info("tracing: exporting spans over OTLP/HTTP", "endpoint", endpoint(), "service", serviceName(service))
	}
	return func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return errors.Join(tp.ForceFlush(ctx), tp.Shutdown(ctx))
	}, nil
}

// newResource names the process in every span it exports.
// A replica is told apart by its host name (a container's id in compose).
func newResource(service string) *resource.Resource {
	attrs := []attribute.KeyValue{semconv.ServiceName(serviceName(service)), semconv.ServiceVersion(telemetry.Version)}
	if host, err := os.Hostname(); err == nil {
		attrs = append(attrs, semconv.ServiceInstanceID(host))
	}
	return resource.NewWithAttributes(semconv.SchemaURL, attrs...)
}

func serviceName(service string) string {
	if s := strings.TrimSpace(os.Getenv(EnvServiceName)); s != "" {
		return s
	}
	return service
}

func endpoint() string {
	if e := os.Getenv(EnvTracesEndpoint); e != "" {
		return e
	}
	return os.Getenv(EnvEndpoint)
}

// Fail marks span failed with err, when there is one.
func Fail(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
}

// Start is Setup for a binary's main: a tracing setup that fails is logged
// and the binary runs on without exporting, since spans are never worth
// refusing to serve. Call the returned func on the way out to flush.
func Start(service string, log *slog.Logger) (stop func()) {
	shutdown, err := Setup(context.Background(), service, log)
	if err != nil {
		if log != nil {
			log.Warn("tracing is off", "err", err)
		}
		return func() {}
	}
	return func() {
		if err := shutdown(context.Background()); err != nil && log != nil {
			log.Warn("tracing: flushing spans on exit failed", "err", err)
		}
	}
}

// Phase starts a span named name, the child of ctx's, and returns the
// context to run the phase in and the func that ends it with its outcome:
// the shape a domain package takes as a hook, so that it imports no
// tracing itself.
func Phase(ctx context.Context, name string) (context.Context, func(error)) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, func(error) {} // no trace to add to: nothing to record
	}
	ctx, span := Tracer().Start(ctx, name)
	return ctx, func(err error) { Fail(span, err); span.End() }
}

package tracing_test

import (
	"context"
	"testing"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/trace"

	"github.com/openhuman-go/openhuman-go/pkg/tracing"
)

// BenchmarkCallOverheadOff is what one tool call does for tracing when
// no endpoint is set, all of it: the gateway's span, the gate's, the bus
// hop's, the headers written and read, the service's span and two memory
// phases, each on the no-op provider.
func BenchmarkCallOverheadOff(b *testing.B) {
	b.Setenv(tracing.EnvEndpoint, "")
	b.Setenv(tracing.EnvTracesEndpoint, "")
	defer tracing.Start("bench", nil)()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		callOverhead(ctx)
	}
}

func callOverhead(ctx context.Context) {
	tr := tracing.Tracer()
	ctx, call := tr.Start(ctx, "tools/call memory.fetch", trace.WithSpanKind(trace.SpanKindServer))
	_, gate := tr.Start(ctx, "policy")
	gate.End()
	bctx, hop := tr.Start(ctx, "bus openhuman.memory.fetch", trace.WithSpanKind(trace.SpanKindClient))
	hdr := nats.Header{}
	tracing.Inject(bctx, hdr)
	_, serve := tr.Start(tracing.Extract(context.Background(), hdr), "serve openhuman.memory.fetch", trace.WithSpanKind(trace.SpanKindServer))
	sctx := trace.ContextWithSpan(context.Background(), serve)
	_, done := tracing.Phase(sctx, "memory rank hybrid")
	done(nil)
	_, done = tracing.Phase(sctx, "memory read items")
	done(nil)
	serve.End()
	hop.End()
	call.End()
}

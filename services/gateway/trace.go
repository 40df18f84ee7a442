package gateway

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/tracing"
)

// startCall starts the span of one tool call, "tools/call <tool>": the
// child of the trace context the transport found on the request (an MCP
// _meta.traceparent, an HTTP traceparent header), or a new trace's root.
// Its children are the gate's span and the bus hop's, whose context rides
// to the service.
func startCall(ctx context.Context, tool string, cc contract.CallContext) (context.Context, trace.Span) {
	ctx, span := tracing.Tracer().Start(ctx, "tools/call "+tool, trace.WithSpanKind(trace.SpanKindServer))
	if span.IsRecording() {
		span.SetAttributes(attribute.String("mcp.tool.name", tool),
			attribute.String("openhuman.transport", cc.Transport),
			attribute.String("openhuman.source", cc.Source))
	}
	return ctx, span
}

// endSpan ends span, marked failed when err is a failure.
func endSpan(span trace.Span, err error) {
	tracing.Fail(span, err)
	span.End()
}

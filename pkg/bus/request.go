package bus

import (
	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/trace"

	"github.com/openhuman-go/openhuman-go/pkg/tracing"
)

// request is what handle reads of one message.
type request struct {
	subject, reply string
	data           []byte
	auth, parent   string     // callauth's headers
	span           trace.Span // the request's server span
}

// startSpan starts the server span of a request, the child of the span
// its caller put in its headers, if any.
func (s *Service) startSpan(subject string, hdr nats.Header) trace.Span {
	ctx := tracing.Extract(s.ctx, hdr)
	_, span := tracing.Tracer().Start(ctx, "serve "+subject, trace.WithSpanKind(trace.SpanKindServer))
	return span
}

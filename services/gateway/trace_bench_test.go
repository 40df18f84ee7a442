package gateway_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/tracing"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
)

// BenchmarkCallTracing is one cheap tool call through the embedded system
// with tracing as a binary sets it up with no OTLP endpoint (off: the
// no-op provider), and with every span recorded and handed to an exporter
// (on). Compare off with BenchmarkListSubagents from before tracing
// existed to see what the no-op costs.
func BenchmarkCallTracing(b *testing.B) {
	b.Setenv(tracing.EnvEndpoint, "")
	b.Setenv(tracing.EnvTracesEndpoint, "")
	prev := otel.GetTracerProvider()
	stop := tracing.Start("bench", nil)
	defer stop()
	gw := gatewaytest.Start(b, nil, gateway.Options{})
	cc := contract.CallContext{Source: "bench"}
	call := func(b *testing.B) {
		for b.Loop() {
			if _, err := gw.CallTool(context.Background(), "agent.list_subagents", nil, cc); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("off", call)
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	otel.SetTracerProvider(tp)
	defer func() { otel.SetTracerProvider(prev); _ = tp.Shutdown(context.Background()) }()
	b.Run("on", call)
}

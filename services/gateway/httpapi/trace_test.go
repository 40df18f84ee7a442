package httpapi_test

import (
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/openhuman-go/openhuman-go/services/gateway"
)

// mustTrace records every span ended until the test ends, in memory, as
// an OTLP exporter would send them.
func mustTrace(tb testing.TB) *tracetest.InMemoryExporter {
	tb.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	tb.Cleanup(func() {
		otel.SetTracerProvider(prevTP)
		otel.SetTextMapPropagator(prevProp)
		_ = tp.Shutdown(tb.Context())
	})
	return exp
}

const (
	clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpan  = "00f067aa0ba902b7"
	traceparent = "00-" + clientTrace + "-" + clientSpan + "-01"
)

// spanTree is the spans of one trace by name, each with its parent's name.
type spanTree struct {
	byName map[string]tracetest.SpanStub
	names  map[trace.SpanID]string
}

func treeOf(t *testing.T, exp *tracetest.InMemoryExporter, id trace.TraceID) spanTree {
	t.Helper()
	tr := spanTree{byName: map[string]tracetest.SpanStub{}, names: map[trace.SpanID]string{}}
	for _, s := range exp.GetSpans() {
		if s.SpanContext.TraceID() != id {
			continue
		}
		tr.byName[s.Name] = s
		tr.names[s.SpanContext.SpanID()] = s.Name
	}
	return tr
}

// parentOf is the name of the span's parent, "" for a root, or its span
// id when it is not in the trace (the client's span).
func (tr spanTree) parentOf(t *testing.T, name string) string {
	t.Helper()
	s, ok := tr.byName[name]
	if !ok {
		t.Fatalf("no span %q in the trace; spans: %v", name, tr.names)
	}
	if !s.Parent.IsValid() {
		return ""
	}
	if n, ok := tr.names[s.Parent.SpanID()]; ok {
		return n
	}
	return s.Parent.SpanID().String()
}

// checkCallTrace checks that one memory.fetch call is one trace, from the
// gateway's span (whose parent is root) through the bus hop into the
// memory service's spans.
func checkCallTrace(t *testing.T, tr spanTree, root string) {
	t.Helper()
	for child, parent := range map[string]string{
		"tools/call memory.fetch":      root,
		"policy":                       "tools/call memory.fetch",
		"bus openhuman.memory.fetch":   "tools/call memory.fetch",
		"serve openhuman.memory.fetch": "bus openhuman.memory.fetch",
		"memory rank hybrid":           "serve openhuman.memory.fetch",
	} {
		if got := tr.parentOf(t, child); got != parent {
			t.Errorf("span %q: parent %q, want %q", child, got, parent)
		}
	}
	if k := tr.byName["serve openhuman.memory.fetch"].SpanKind; k != trace.SpanKindServer {
		t.Errorf("the service's span is of kind %v, want server", k)
	}
}

// TestTraceMCPMeta: a 2026-07-28 tools/call whose _meta carries a
// traceparent is one trace under the client's span, down to memory's
// ranking.
func TestTraceMCPMeta(t *testing.T) {
	exp := mustTrace(t)
	url := mustServe(t, gateway.Options{}).URL + "/mcp"
	body, headers := modernCall(1, "tools/call", "memory.fetch", `{"query":"tracing words"}`, "Tracer")
	body = strings.Replace(body, `"_meta":{`, `"_meta":{"traceparent":"`+traceparent+`","tracestate":"vendor=1",`, 1)
	resp, out := post(t, url, body, headers...)
	if resp.StatusCode != 200 || decodeAnswer(t, out).Error != nil {
		t.Fatalf("%d %s", resp.StatusCode, out)
	}
	id, _ := trace.TraceIDFromHex(clientTrace)
	tr := treeOf(t, exp, id)
	checkCallTrace(t, tr, clientSpan)
	if ts := tr.byName["tools/call memory.fetch"].SpanContext.TraceState().Get("vendor"); ts != "1" {
		t.Errorf("tracestate vendor=%q, want the client's 1", ts)
	}
}

// TestTraceHTTPHeader: a JSON-RPC call with a traceparent header is one
// trace under the caller's span.
func TestTraceHTTPHeader(t *testing.T) {
	exp := mustTrace(t)
	url := mustServe(t, gateway.Options{}).URL + "/rpc"
	resp, out := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_fetch","params":{"query":"tracing words"}}`,
		"traceparent", traceparent)
	if resp.StatusCode != 200 || strings.Contains(out, `"error"`) {
		t.Fatalf("%d %s", resp.StatusCode, out)
	}
	id, _ := trace.TraceIDFromHex(clientTrace)
	checkCallTrace(t, treeOf(t, exp, id), clientSpan)
}

// TestTraceNewRoot: a call that names no trace starts one, the gateway's
// span its root.
func TestTraceNewRoot(t *testing.T) {
	exp := mustTrace(t)
	url := mustServe(t, gateway.Options{}).URL + "/rpc"
	resp, out := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_fetch","params":{"query":"tracing words"}}`)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, out)
	}
	var id trace.TraceID
	for _, s := range exp.GetSpans() {
		if s.Name == "tools/call memory.fetch" {
			id = s.SpanContext.TraceID()
		}
	}
	if !id.IsValid() {
		t.Fatal("no span of the tool call")
	}
	checkCallTrace(t, treeOf(t, exp, id), "")
}

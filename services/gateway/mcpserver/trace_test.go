package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// traceSpy is the real gateway, noting the span context each tool call
// arrives with.
type traceSpy struct {
	*faulty
	got trace.SpanContext
}

func (s *traceSpy) CallTool(ctx context.Context, name string, args json.RawMessage, cc contract.CallContext) (json.RawMessage, error) {
	s.got = trace.SpanContextFromContext(ctx)
	return s.faulty.CallTool(ctx, name, args, cc)
}

// TestTraceparentInMeta: a tools/call's _meta.traceparent becomes the
// parent of the call, in a session of the handshake era as in a
// stateless 2026-07-28 request; a malformed one is ignored.
func TestTraceparentInMeta(t *testing.T) {
	prev := otel.GetTextMapPropagator()
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() { otel.SetTextMapPropagator(prev) })
	base, f := newTestServer(t)
	spy := &traceSpy{faulty: f}
	opts := base.opts
	s := New(spy, &opts)
	const id = "4bf92f3577b34da6a3ce929d0e0e4736"
	const parent = `"traceparent":"00-` + id + `-00f067aa0ba902b7-01"`
	stateless := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	for _, tc := range []struct {
		name, meta string
		session    bool // sent on an initialized session
		want       string
	}{
		{"handshake era", parent, true, id},
		{"2026-07-28", parent + "," + stateless, false, id},
		{"none", stateless, false, ""},
		{"not a string", `"traceparent":7,` + stateless, false, ""},
		{"malformed", `"traceparent":"00-xyz-01",` + stateless, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sess := NewSession(contract.TransportMCPStdio)
			if tc.session {
				sess = initialized(t, s)
			}
			spy.got = trace.SpanContext{}
			msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory.fetch","arguments":{"query":"x"},"_meta":{` + tc.meta + `}}}`
			if resp := handle(t, s, sess, msg); resp["error"] != nil {
				t.Fatalf("%v", resp)
			}
			got := ""
			if spy.got.IsValid() {
				got = spy.got.TraceID().String()
			}
			if got != tc.want || (got != "" && !strings.HasPrefix(spy.got.SpanID().String(), "00f067aa")) {
				t.Errorf("the call's span context %v, want trace %q", spy.got, tc.want)
			}
		})
	}
}

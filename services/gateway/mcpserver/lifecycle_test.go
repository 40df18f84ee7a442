package mcpserver

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
)

// Before initialize only ping is served; everything else is refused with
// what to send, and nothing it asked for happens.
func TestNothingRunsBeforeInitialize(t *testing.T) {
	s, _ := newTestServer(t)
	sess := NewSession(contract.TransportMCPStdio)
	for _, tc := range []struct{ name, msg string }{
		{"tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory.learn","arguments":{"text":"Planted before initialize: zqearlyword."}}}`},
		{"tools/list", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`},
		{"resources/read", `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"openhuman://memory/recent"}}`},
		{"unknown method", `{"jsonrpc":"2.0","id":4,"method":"nope/nothing"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := handle(t, s, sess, tc.msg)["error"].(map[string]any)
			if e == nil || e["code"] != float64(jsonrpc.CodeInvalidRequest) || !strings.Contains(e["message"].(string), "before initialize; send initialize first") {
				t.Errorf("got error %v, want -32600 saying to send initialize first", e)
			}
		})
	}
	if resp := handle(t, s, sess, `{"jsonrpc":"2.0","id":5,"method":"ping"}`); resp["result"] == nil {
		t.Errorf("ping before initialize: %v", resp)
	}
	// A notification cannot be answered; notifications/initialized before
	// initialize does not count as getting past it.
	if out := s.Handle(t.Context(), sess, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); out != nil {
		t.Errorf("a notification was answered: %s", out)
	}
	if resp := handle(t, s, sess, `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`); resp["error"] == nil {
		t.Errorf("notifications/initialized stood in for initialize: %v", resp)
	}
	// An initialize that fails leaves the session where it was.
	if resp := handle(t, s, sess, `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"clientInfo":"not an object"}}`); resp["error"] == nil {
		t.Fatalf("bad initialize answered: %v", resp)
	}
	if resp := handle(t, s, sess, `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`); resp["error"] == nil {
		t.Errorf("served after a failed initialize: %v", resp)
	}
	handle(t, s, sess, initLine)
	resp := handle(t, s, sess, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"memory.fetch","arguments":{"query":"zqearlyword"}}}`)
	text := resp["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	if strings.Contains(text, "zqearlyword") || !strings.Contains(text, `"hits": []`) {
		t.Errorf("the learn sent before initialize was stored: %s", text)
	}
}

// A client may send requests as soon as initialize is answered, before
// notifications/initialized; either makes the session ready.
func TestReadyAfterInitialize(t *testing.T) {
	s, _ := newTestServer(t)
	for _, next := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	} {
		sess := NewSession(contract.TransportMCPHTTP)
		if sess.Ready() {
			t.Fatal("ready before initialize")
		}
		handle(t, s, sess, initLine)
		if sess.Ready() {
			t.Fatal("ready on initialize alone")
		}
		if out := s.Handle(t.Context(), sess, []byte(next)); bytes.Contains(out, []byte(`"error":{"code"`)) {
			t.Errorf("%s after initialize: %.300s", next, out)
		}
		if !sess.Ready() {
			t.Errorf("not ready after %s", next)
		}
	}
}

func TestSecondInitializeIsRefused(t *testing.T) {
	s, _ := newTestServer(t)
	sess := initialized(t, s)
	resp := handle(t, s, sess, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"Someone Else"}}}`)
	e, _ := resp["error"].(map[string]any)
	if e == nil || e["code"] != float64(jsonrpc.CodeInvalidRequest) || !strings.Contains(e["message"].(string), "already initialized (as mcp:test-client)") {
		t.Errorf("second initialize: %v", resp)
	}
	if sess.Source() != "mcp:test-client" || !sess.agreed().structured() {
		t.Errorf("the second initialize changed the session: %s, structured %v", sess.Source(), sess.agreed().structured())
	}
}

func TestLifecycleOverStdio(t *testing.T) {
	s, _ := newTestServer(t)
	in, lines, _ := stdioSession(t, s)
	for _, step := range []struct{ send, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory.list","arguments":{}}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: tools/call before initialize; send initialize first`},
		{`{"jsonrpc":"2.0","id":2,"method":"ping"}`, `{"jsonrpc":"2.0","id":2,"result":{}}`},
		{initLine, `{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":"2025-11-25"`},
		{`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"clientInfo":{"name":"Other"}}}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request: this session is already initialized (as mcp:test-client)`},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"memory.list","arguments":{}}}`, `{"jsonrpc":"2.0","id":4,"result":`},
	} {
		io.WriteString(in, step.send+"\n")
		if l := recv(t, lines); !strings.HasPrefix(l, step.want) {
			t.Errorf("%.80s\n got %.300s\nwant %s", step.send, l, step.want)
		}
	}
}

// TestBatchIsBounded: an MCP batch is held to the limit /rpc has, so one
// message cannot ask for thousands of calls.
func TestBatchIsBounded(t *testing.T) {
	s, _ := newTestServer(t)
	sess := NewSession(contract.TransportMCPStdio)
	handle(t, s, sess, initLine)
	batch := "[" + strings.TrimSuffix(strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"ping"},`, jsonrpc.MaxBatch+1), ",") + "]"
	if resp := handle(t, s, sess, batch); resp["error"] == nil || !strings.Contains(resp["error"].(map[string]any)["message"].(string), "over the limit of 100") {
		t.Errorf("a batch of %d pings: %v", jsonrpc.MaxBatch+1, resp)
	}
}

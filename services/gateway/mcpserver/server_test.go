package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
)

var _ backend = (*gateway.Gateway)(nil)

// faulty is the real gateway with a few extra tools that misbehave on
// purpose: the faults a real backend can have, on demand.
type faulty struct {
	*gateway.Gateway
	cancelled chan string
	release   chan struct{} // test.slow answers once it is closed
}

func (f *faulty) CallTool(ctx context.Context, name string, args json.RawMessage, cc contract.CallContext) (json.RawMessage, error) {
	switch {
	case name == "test.panic":
		panic("boom")
	case name == "test.slow":
		select {
		case <-ctx.Done():
			f.cancelled <- string(args)
			return nil, contract.Errorf(contract.CodeUnavailable, "cancelled")
		case <-f.release:
			return json.RawMessage(`{"slept":true}`), nil
		}
	case strings.HasPrefix(name, "test.code."):
		code := contract.Code(strings.TrimPrefix(name, "test.code."))
		return nil, contract.Errorf(code, "failed with %s", code)
	}
	return f.Gateway.CallTool(ctx, name, args, cc)
}

func newTestServer(tb testing.TB) (*Server, *faulty) {
	f := &faulty{Gateway: gatewaytest.Start(tb, nil, gateway.Options{Timeout: 10 * time.Second}), cancelled: make(chan string, 4), release: make(chan struct{})}
	return New(f, &Options{Version: "test", Instructions: gateway.Instructions}), f
}

func handle(t *testing.T, s *Server, sess *Session, msg string) map[string]any {
	t.Helper()
	out := s.Handle(context.Background(), sess, []byte(msg))
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("%s → %q", msg, out)
	}
	return m
}

const initLine = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"Test Client","version":"1"}}}`

// initialized is a stdio session past initialize, as clients use them.
func initialized(t *testing.T, s *Server) *Session {
	t.Helper()
	sess := NewSession(contract.TransportMCPStdio)
	if resp := handle(t, s, sess, initLine); resp["result"] == nil {
		t.Fatalf("initialize: %v", resp)
	}
	return sess
}

func TestEveryCodeMaps(t *testing.T) {
	s, _ := newTestServer(t)
	sess := initialized(t, s)
	for _, code := range contract.Codes() {
		outcome, ok := toolErrors[code]
		if !ok {
			t.Errorf("%s has no MCP mapping", code)
			continue
		}
		resp := handle(t, s, sess, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test.code.`+string(code)+`"}}`)
		switch outcome {
		case asInvalidParams:
			e, _ := resp["error"].(map[string]any)
			if e == nil || e["code"] != float64(jsonrpc.CodeInvalidParams) || e["data"].(map[string]any)["code"] != string(code) {
				t.Errorf("%s: want -32602 with data.code, got %v", code, resp)
			}
		case asToolError:
			r, _ := resp["result"].(map[string]any)
			text := ""
			if r != nil {
				text = r["content"].([]any)[0].(map[string]any)["text"].(string)
			}
			if r == nil || r["isError"] != true || text != "test.code."+string(code)+" failed: failed with "+string(code) {
				t.Errorf("%s: want an isError result, got %v", code, resp)
			}
		default:
			t.Errorf("%s: unknown outcome %d", code, outcome)
		}
	}
}

func TestProtocolVersionNegotiation(t *testing.T) {
	s, _ := newTestServer(t)
	for asked, want := range map[string]string{
		"2024-11-05": "2024-11-05", "2025-03-26": "2025-03-26", "2025-06-18": "2025-06-18", "2025-11-25": "2025-11-25",
		"2026-07-28": "2025-11-25", "1999-01-01": "2025-11-25", "": "2025-11-25",
	} {
		resp := handle(t, s, NewSession(contract.TransportMCPStdio),
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+asked+`","capabilities":{}}}`)
		if got := resp["result"].(map[string]any)["protocolVersion"]; got != want {
			t.Errorf("asked %q, got %v, want %s", asked, got, want)
		}
	}
	resp := handle(t, s, NewSession(contract.TransportMCPStdio), `{"jsonrpc":"2.0","id":1,"method":"initialize"}`)
	if resp["result"].(map[string]any)["protocolVersion"] != ProtocolVersions[0] {
		t.Errorf("initialize without params: %v", resp)
	}
}

func TestProvenanceFollowsClientInfo(t *testing.T) {
	s, _ := newTestServer(t)
	for name, want := range map[string]string{"Claude Desktop": "mcp:claude-desktop", "Cursor": "mcp:cursor", "": "mcp", "¿?": "mcp"} {
		sess := NewSession(contract.TransportMCPStdio)
		handle(t, s, sess, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"`+name+`"}}}`)
		if sess.Source() != want {
			t.Errorf("%q → %q, want %q", name, sess.Source(), want)
		}
	}
	if got := NewSession(contract.TransportMCPStdio).Source(); got != "mcp" {
		t.Errorf("before initialize: %q", got)
	}
}

func TestPanicIsRecovered(t *testing.T) {
	s, _ := newTestServer(t)
	sess := initialized(t, s)
	resp := handle(t, s, sess, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"test.panic"}}`)
	if e := resp["error"].(map[string]any); e["code"] != float64(jsonrpc.CodeInternalError) || !strings.Contains(e["message"].(string), "still running") {
		t.Errorf("got %v", resp)
	}
	if resp := handle(t, s, sess, `{"jsonrpc":"2.0","id":8,"method":"ping"}`); resp["result"] == nil {
		t.Errorf("not serving after a panic: %v", resp)
	}
}

// stdioSession runs ServeStdio over pipes and returns a writer for requests
// and a channel of response lines.
func stdioSession(t *testing.T, s *Server) (io.WriteCloser, <-chan string, <-chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), inR, outW); outW.Close() }()
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return inW, lines, done
}

// initializedStdio is stdioSession after initialize has been answered.
func initializedStdio(t *testing.T, s *Server) (io.WriteCloser, <-chan string, <-chan error) {
	t.Helper()
	in, lines, done := stdioSession(t, s)
	io.WriteString(in, initLine+"\n")
	if l := recv(t, lines); !strings.Contains(l, `"id":"init","result"`) {
		t.Fatalf("initialize: %s", l)
	}
	return in, lines, done
}

func recv(t *testing.T, lines <-chan string) string {
	t.Helper()
	select {
	case l := <-lines:
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no response")
	}
	return ""
}

func TestCancelledRequestGetsNoResponse(t *testing.T) {
	s, f := newTestServer(t)
	in, lines, _ := initializedStdio(t, s)
	// Sent together: the cancellation may be read before the call's
	// handler has started, and must stop it all the same.
	io.WriteString(in, `{"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{"name":"test.slow","arguments":{"n":1}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow-1","reason":"user"}}`+"\n")
	select {
	case got := <-f.cancelled:
		if got != `{"n":1}` {
			t.Errorf("cancelled the wrong call: %s", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call was not cancelled")
	}
	io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	if l := recv(t, lines); l != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Errorf("got %s: a cancelled request must not be answered", l)
	}
}

func TestSlowCallDoesNotBlockOthers(t *testing.T) {
	s, f := newTestServer(t)
	in, lines, done := initializedStdio(t, s)
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test.slow"}}`+"\n")
	io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory.list","arguments":{}}}`+"\n")
	io.WriteString(in, `{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n")
	in.Close() // EOF at once: the slow call must still be answered
	var order []float64
	for l := range lines {
		var m map[string]any
		json.Unmarshal([]byte(l), &m)
		order = append(order, m["id"].(float64))
		if len(order) == 2 {
			close(f.release) // the others are answered while it is still running
		}
	}
	if len(order) != 3 || order[len(order)-1] != 1 {
		t.Errorf("response order %v: the slow call should finish last, and all three must arrive", order)
	}
	if err := <-done; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

func TestTooLongLineIsSkipped(t *testing.T) {
	s, _ := newTestServer(t)
	in, lines, _ := stdioSession(t, s)
	go func() {
		io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`)
		io.Copy(in, io.LimitReader(zeros{}, MaxMessageBytes+1))
		io.WriteString(in, `"}}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	}()
	if l := recv(t, lines); !strings.Contains(l, `"code":-32600`) || !strings.Contains(l, "16 MiB") {
		t.Errorf("got %s", l)
	}
	if l := recv(t, lines); l != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Errorf("got %s", l)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	copy(p, bytes.Repeat([]byte("0"), len(p)))
	return len(p), nil
}

// TestSessionReadsItsOwnWrites pipes each learn immediately followed by a
// fetch for it: the fetch must see the learning, although calls run
// concurrently.
func TestSessionReadsItsOwnWrites(t *testing.T) {
	s, _ := newTestServer(t)
	in, lines, _ := initializedStdio(t, s)
	const n = 25
	go func() {
		for i := 0; i < n; i++ {
			word := fmt.Sprintf("zq%dword", i)
			fmt.Fprintf(in, `{"jsonrpc":"2.0","id":"learn-%d","method":"tools/call","params":{"name":"memory.learn","arguments":{"text":"marker %s"}}}`+"\n", i, word)
			fmt.Fprintf(in, `{"jsonrpc":"2.0","id":"fetch-%d","method":"tools/call","params":{"name":"memory.fetch","arguments":{"query":"%s"}}}`+"\n", i, word)
		}
	}()
	for i := 0; i < 2*n; i++ {
		l := recv(t, lines)
		if strings.Contains(l, `"id":"fetch-`) && !strings.Contains(l, `marker zq`) {
			t.Errorf("a fetch did not see the learn sent before it: %.200s", l)
		}
	}
}

// toolSuccess writes the bytes a toolResult of the indented result encodes
// to, text escapes and all.
func TestToolSuccessEncodesAsToolResult(t *testing.T) {
	for _, tc := range []struct {
		raw        string
		structured bool
	}{
		{`{"hits":[]}`, true},
		{`{"text":"line\n\"quoted\" <b>&amp; é 日本 \u2028 \u0001","n":[1,2,{"b":null}]}`, false},
		{"{\"t\":\"\u2028 \xff\"}", true},
		{`"a string"`, false},
		{`null`, false},
	} {
		text, ok := contract.IndentJSON([]byte(tc.raw))
		if !ok {
			t.Fatalf("not JSON: %s", tc.raw)
		}
		var structured json.RawMessage
		if tc.structured {
			structured = json.RawMessage(tc.raw)
		}
		want, err := contract.Marshal(toolResult{Content: []textContent{{Type: "text", Text: string(text)}}, StructuredContent: structured})
		if err != nil {
			t.Fatal(err)
		}
		ts := toolSuccess{raw: json.RawMessage(tc.raw), structured: tc.structured}
		if got := ts.AppendJSON(nil); !bytes.Equal(got, want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
		if got := jsonrpc.Encode(jsonrpc.ResultResponse(json.RawMessage("7"), ts)); !bytes.Equal(got, []byte(`{"jsonrpc":"2.0","id":7,"result":`+string(want)+`}`)) {
			t.Errorf("framed: %s", got)
		}
	}
}

// toolCallParams reads params as json.Unmarshal does.
func TestToolCallParamsAgreeWithUnmarshal(t *testing.T) {
	for _, params := range []string{
		``, `null`, `{}`, `[]`, `"x"`, `{"name":"memory.fetch","arguments":{"query":"q"}}`, `{"name":null}`,
		`{"name":"a","name":"b"}`, `{"NAME":"a","Arguments":[1]}`, `{"name":"a","name":null}`, `{"name":1}`,
		`{"n\u0061me":"x\u00e9"}`, `{"name":""}`, `{"name":"x","arguments":null}`, `{"argumentſ":{},"name":"k"}`,
		"{\"name\":\"\xff\"}", `{"name":"x"`,
	} {
		var p struct {
			Name      *string         `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		err := json.Unmarshal(orEmpty(json.RawMessage(params)), &p)
		wantOK := err == nil && p.Name != nil
		name, args, ok := toolCallParams(json.RawMessage(params))
		if ok != wantOK || ok && (name != *p.Name || !bytes.Equal(args, p.Arguments)) {
			t.Errorf("%s: got (%q, %s, %v), json.Unmarshal gives (%v, %s, %v)", params, name, args, ok, p.Name, p.Arguments, wantOK)
		}
	}
}

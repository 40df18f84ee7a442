package mcpserver

// These tests run the official Go SDK's server the way the reference smoke
// tests run ours and check that it still gets wrong what made us write this
// package by hand (see the package comment). Each fails the day the SDK gets
// its behaviour right, so that the hand-written part can shrink.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The smoke tests' handshake, verbatim from the reference documents, and a
// ping whose answer shows that a session still serves.
const (
	smokeInitialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"smoke","version":"0"}}}`
	smokeInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	pingLine         = `{"jsonrpc":"2.0","id":1000,"method":"ping"}`
	pingAnswer       = `{"jsonrpc":"2.0","id":1000,"result":{}}`
)

// referenceTools is the order the reference lists the memory tools in, and
// the order its smoke test prints them.
var referenceTools = []string{"memory.recall", "memory.fetch", "memory.list", "memory.learn", "memory.forget"}

// sdkLearnHold bounds how long the SDK's memory.learn waits for its context
// to end; it ends at once while the SDK cancels calls at stdin EOF.
const sdkLearnHold = 2 * time.Second

// newSDKServer configures the SDK's server as close to ours as its options
// allow: our name, instructions, capabilities and tools.
func newSDKServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "openhuman-core", Version: "test"}, &mcp.ServerOptions{
		Instructions: "Use memory.recall to answer from memory.",
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Resources: &mcp.ResourceCapabilities{}},
	})
	for _, name := range referenceTools {
		s.AddTool(&mcp.Tool{Name: name, Description: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if name == "memory.learn" {
					// A write finishes even when the client has stopped
					// sending: it waits here until the SDK gives up on it.
					select {
					case <-ctx.Done():
					case <-time.After(sdkLearnHold):
					}
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"ok":true}`}}}, nil
			})
	}
	return s
}

// serve runs one stdio session over in and out, returning when it is over.
type serve func(in io.Reader, out io.Writer)

func sdkServe(in io.Reader, out io.Writer) {
	newSDKServer().Run(context.Background(), &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopCloser{out}})
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func ourServe(t *testing.T) serve {
	s, _ := newTestServer(t)
	return func(in io.Reader, out io.Writer) { s.ServeStdio(context.Background(), in, out) }
}

// compare runs check on our server, which must pass it (or the check proves
// nothing), then on the SDK's, which must still fail it.
func compare(t *testing.T, ours serve, check func(serve) bool, what, use string) {
	t.Helper()
	if !check(ours) {
		t.Fatalf("our server fails the check for what the SDK gets wrong; fix the check or the server")
	}
	if check(sdkServe) {
		t.Errorf("the SDK (%s) now %s: reconsider using it for %s", sdkVersion(), what, use)
	}
}

// sdkVersion is the SDK version go.mod requires, which may be newer than
// the one the package comment names. (A test binary carries no module
// versions to ask.)
func sdkVersion() string {
	mod, _ := os.ReadFile("../go.mod")
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "github.com/modelcontextprotocol/go-sdk" {
			return f[1]
		}
	}
	return "version unknown"
}

// runPiped serves input the way `printf ... | openhuman-core mcp` does: all
// of it at once, then EOF. It returns the lines written.
func runPiped(serve serve, input string) []string {
	var out bytes.Buffer
	serve(strings.NewReader(input), &out)
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
}

// pipeSession is a server on pipes, like a client that keeps stdin open.
type pipeSession struct {
	in    *io.PipeWriter
	lines chan string // closed when the session has ended
}

func startSession(t *testing.T, serve serve) *pipeSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &pipeSession{in: inW, lines: make(chan string, 16)}
	go func() {
		serve(inR, outW)
		outW.Close()
	}()
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return s
}

// startInitialized is a session past the smoke test's handshake.
func startInitialized(t *testing.T, serve serve) *pipeSession {
	t.Helper()
	s := startSession(t, serve)
	s.send(smokeInitialize, smokeInitialized)
	if l, ok := s.next(2 * time.Second); !ok || !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":1,"result":`) {
		t.Fatalf("initialize was not answered: %q", l)
	}
	return s
}

func (s *pipeSession) send(lines ...string) {
	go io.WriteString(s.in, strings.Join(lines, "\n")+"\n") // a session that has ended reads no more
}

// next is the next line written, or false once the session has ended or
// has been silent for d.
func (s *pipeSession) next(d time.Duration) (string, bool) {
	select {
	case l, ok := <-s.lines:
		return l, ok
	case <-time.After(d):
		return "", false
	}
}

// answers sends line and a ping, and returns what was written besides the
// ping's answer; pinged is false when the session ended instead. Both
// servers run some requests beside others, so the ping may be answered
// first: a missing answer is waited for a little longer.
func (s *pipeSession) answers(line string) (got []string, pinged bool) {
	s.send(line, pingLine)
	for !pinged || len(got) == 0 {
		wait := 2 * time.Second
		if pinged {
			wait = 500 * time.Millisecond
		}
		l, ok := s.next(wait)
		switch {
		case !ok:
			return got, pinged
		case l == pingAnswer:
			pinged = true
		default:
			got = append(got, l)
		}
	}
	return got, pinged
}

// TestSDKDropsAnswersAtEOF: the reference smoke test pipes its requests and
// closes stdin, and expects every request answered. The SDK stops writing
// once stdin reaches EOF, so a call still running then is never answered.
func TestSDKDropsAnswersAtEOF(t *testing.T) {
	input := strings.Join([]string{smokeInitialize, smokeInitialized,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory.learn","arguments":{"text":"t"}}}`}, "\n") + "\n"
	compare(t, ourServe(t), func(serve serve) bool {
		return slices.ContainsFunc(runPiped(serve, input), func(l string) bool { return strings.HasPrefix(l, `{"jsonrpc":"2.0","id":2,`) })
	}, "answers a call still running when piped stdin reaches EOF", "the stdio read loop (ServeStdio)")
}

// TestSDKEndsSessionOnBadLine: a line that is not one JSON-RPC message the
// SDK can take must be answered with an error, and the session must go on.
func TestSDKEndsSessionOnBadLine(t *testing.T) {
	ours := ourServe(t)
	for _, tc := range []struct{ name, line, want string }{
		{"invalid JSON", `{not json`, `"code":-32700`},
		{"missing jsonrpc", `{"id":1,"method":"ping"}`, `"code":-32600`},
		{"number message", `42`, `"code":-32600`},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, `"code":-32600`},
		{"batch after 2025-06-18", `[{"jsonrpc":"2.0","id":"a","method":"ping"}]`, `[{"jsonrpc":"2.0","id":"a","result":{}}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			compare(t, ours, func(serve serve) bool {
				got, pinged := startInitialized(t, serve).answers(tc.line)
				return pinged && len(got) == 1 && strings.Contains(got[0], tc.want)
			}, "answers "+tc.name+" with "+tc.want+" and keeps serving", "the JSON-RPC envelope (package jsonrpc) over stdio")
		})
	}
}

// initialize is the result of the smoke test's initialize, as written.
func initialize(t *testing.T, serve serve) string {
	s := startSession(t, serve)
	s.send(smokeInitialize)
	l, _ := s.next(2 * time.Second)
	return l
}

// TestSDKResourceCapability: the reference prints capabilities as
// {"tools":{},"resources":{"subscribe":false,"listChanged":false}}, and our
// smoke test matches them byte for byte.
func TestSDKResourceCapability(t *testing.T) {
	compare(t, ourServe(t), func(serve serve) bool {
		return strings.Contains(initialize(t, serve), `"capabilities":{"tools":{},"resources":{"subscribe":false,"listChanged":false}}`)
	}, "writes the reference's capabilities object", "initialize")
}

// TestSDKInitializeMemberOrder: the reference's initialize line is
// protocolVersion, capabilities, serverInfo, instructions, and our smoke
// test matches its start byte for byte.
func TestSDKInitializeMemberOrder(t *testing.T) {
	compare(t, ourServe(t), func(serve serve) bool {
		var resp struct{ Result json.RawMessage }
		if json.Unmarshal([]byte(initialize(t, serve)), &resp) != nil {
			return false
		}
		return slices.Equal(memberOrder(resp.Result), []string{"protocolVersion", "capabilities", "serverInfo", "instructions"})
	}, "writes initialize's result in the reference's order", "initialize")
}

// TestSDKToolListOrder: the reference's tools/list line starts
// {"tools":[{"name":"memory.recall", and lists the memory tools in its own
// order (recall, fetch, list, learn, forget), which the smoke test checks.
func TestSDKToolListOrder(t *testing.T) {
	compare(t, ourServe(t), func(serve serve) bool {
		got, pinged := startInitialized(t, serve).answers(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		if !pinged || len(got) != 1 {
			return false
		}
		var resp struct {
			Result struct{ Tools []struct{ Name string } }
		}
		if json.Unmarshal([]byte(got[0]), &resp) != nil || len(resp.Result.Tools) < len(referenceTools) {
			return false
		}
		for i, name := range referenceTools {
			if resp.Result.Tools[i].Name != name {
				return false
			}
		}
		return strings.HasPrefix(got[0], `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"memory.recall",`)
	}, "lists tools in the order added, name first, with no other members", "tools/list")
}

// TestSDKProtocolErrors: requests the SDK settles before any handler or
// middleware of ours could see them, with answers our tests reject.
func TestSDKProtocolErrors(t *testing.T) {
	ours := ourServe(t)
	pad := strings.Repeat("x", 64<<10)
	for _, tc := range []struct {
		name, line string
		fresh      bool                     // sent as a session's first message
		right      func(answer string) bool // what we answer
	}{
		{"tools/call without params", `{"jsonrpc":"2.0","id":3,"method":"tools/call"}`, false,
			hasAll(`"code":-32602`, "tools/call takes {name, arguments}")},
		{"bad tools/call params without echoing them", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":5,"pad":"` + pad + `"}}`, false,
			func(a string) bool { return len(a) < 4096 && strings.Contains(a, `"code":-32602`) }},
		{"an unknown method", `{"jsonrpc":"2.0","id":3,"method":"foo/bar"}`, false,
			hasAll(`"code":-32601`, "Method not found: foo/bar")},
		{"a null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, false,
			hasAll(`"code":-32600`, "id must not be null")},
		{"initialize without params", `{"jsonrpc":"2.0","id":3,"method":"initialize"}`, true,
			hasAll(`"result":{`, `"protocolVersion":"2025-11-25"`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			compare(t, ours, func(serve serve) bool {
				var s *pipeSession
				if tc.fresh {
					s = startSession(t, serve)
				} else {
					s = startInitialized(t, serve)
				}
				got, pinged := s.answers(tc.line)
				return pinged && len(got) == 1 && tc.right(got[0])
			}, "answers "+tc.name+" as we do", "the MCP method dispatch (Server.Handle)")
		})
	}
}

func hasAll(subs ...string) func(string) bool {
	return func(s string) bool {
		for _, sub := range subs {
			if !strings.Contains(s, sub) {
				return false
			}
		}
		return true
	}
}

// memberOrder lists a JSON object's member names as written; nil when obj
// is not an object.
func memberOrder(obj json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		var skip json.RawMessage
		if err != nil || dec.Decode(&skip) != nil {
			return nil
		}
		keys = append(keys, fmt.Sprint(tok))
	}
	return keys
}

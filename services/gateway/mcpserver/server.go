// Package mcpserver speaks the Model Context Protocol: JSON-RPC 2.0 messages
// (single or batched) in, responses out, over stdio here and over HTTP in
// the same way. It owns the protocol rules (versions, capabilities, error
// codes) and hands tools and resources to a backend, the gateway.
//
// It is written by hand rather than on the official Go SDK's server
// (github.com/modelcontextprotocol/go-sdk/mcp). Every reason below was
// checked again against v1.8.0, and holds: that server cannot give the wire
// behaviour the reference documents and our tests demand of the handshake
// revisions; sdk_test.go fails once it can. MCP 2026-07-28 is not among the
// reasons: v1.8.0's server speaks it too (server/discover, input_required
// results with requestState left to the handler to protect,
// subscriptions/listen), and its client works against this server in
// both eras (cmd/openhuman-core's TestOfficialSDKClient* tests).
//   - stdin EOF stops all writes, so a piped smoke test loses answers to requests already read;
//   - a line that is bad JSON, lacks "jsonrpc", is not an object, has an object id, or is a batch after 2025-06-18 ends the session unanswered;
//   - the resources capability cannot be written {"subscribe":false,"listChanged":false}, and capabilities come out resources first;
//   - initialize's result comes out capabilities, instructions, protocolVersion, serverInfo, not in the reference's order;
//   - tools/list is sorted by name, led by ttlMs and cacheScope (2026-07-28's, even on a 2025-06-18 session), with each name after its description;
//   - some errors are settled before any hook: -32600 for tools/call without params or initialize without params, silence for a null id, Go decoding messages that echo the params, `method not found: "x"`.
package mcpserver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
)

// ProtocolVersions are the MCP revisions with an initialize handshake this
// server speaks, newest first. A client asking initialize for another gets
// the newest. StatelessVersions (stateless.go) are the ones without.
var ProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// structuredSince is the first revision with outputSchema and
// structuredContent. Sessions on an older one get neither: their clients
// read the text content, which is the same JSON.
const structuredSince = "2025-06-18"

// backend serves what the protocol exposes.
type backend interface {
	Tools(ctx context.Context) []contract.Tool
	CallTool(ctx context.Context, name string, args json.RawMessage, cc contract.CallContext) (json.RawMessage, error)
	Resources(ctx context.Context, cc contract.CallContext) ([]contract.Resource, error)
	ReadResource(ctx context.Context, uri string, cc contract.CallContext) (*contract.ResourceRead, error)
}

// Options configure a Server; nil means defaults.
type Options struct {
	Name    string // serverInfo.name, default "openhuman-core"
	Version string // serverInfo.version
	// Instructions renders initialize's instructions from the live tools.
	Instructions func([]contract.Tool) string
	// ToolsOnly advertises tools and nothing else; resources/* are then
	// unknown methods (the older v1 surface).
	ToolsOnly bool
	Logger    *slog.Logger
	// ListenPoll is how often an open subscriptions/listen looks at the
	// live tools, and ListenMax how long one lasts before the server ends
	// it (defaults DefaultListenPoll, DefaultListenMax; listen.go).
	ListenPoll, ListenMax time.Duration
}

// Server answers MCP messages for any number of sessions.
type Server struct {
	b    backend
	opts Options
	// serverInfo is {name, version} encoded, for every 2026-07-28 result.
	serverInfo []byte
	// draining closes when the server stops (Drain): subscriptions end.
	draining  chan struct{}
	drainOnce sync.Once
}

// New returns a server over b.
func New(b backend, opts *Options) *Server {
	s := &Server{b: b, draining: make(chan struct{})}
	if opts != nil {
		s.opts = *opts
	}
	s.opts.ListenPoll = cmp.Or(s.opts.ListenPoll, DefaultListenPoll)
	s.opts.ListenMax = cmp.Or(s.opts.ListenMax, DefaultListenMax)
	if s.opts.Name == "" {
		s.opts.Name = "openhuman-core"
	}
	if s.opts.Logger == nil {
		s.opts.Logger = slog.New(slog.DiscardHandler)
	}
	if s.opts.Instructions == nil {
		s.opts.Instructions = func([]contract.Tool) string { return "" }
	}
	s.serverInfo, _ = json.Marshal(implementation{Name: s.opts.Name, Version: s.opts.Version}) // two strings: cannot fail
	return s
}

// Handle answers one message: a request, a notification or a batch. It
// returns the bytes to send (one line of compact JSON) or nil when there is
// nothing to send.
func (s *Server) Handle(ctx context.Context, sess *Session, data []byte) []byte {
	if sess.deliver(data) {
		return nil // the client answering a request of ours
	}
	return jsonrpc.Handle(data, jsonrpc.MaxBatch, func(m *jsonrpc.Message) *jsonrpc.Response { return s.handleOne(ctx, sess, m, nil) })
}

// Answer answers one decoded request or notification as Handle would, and
// nil when no response is due. A transport that picks its status by the
// outcome (2026-07-28 over HTTP) takes the response before it is encoded.
func (s *Server) Answer(ctx context.Context, sess *Session, m *jsonrpc.Message) *jsonrpc.Response {
	return s.handleOne(ctx, sess, m, nil)
}

// handleOne answers a single message; nil means no response is due. call
// is tools/call's params when the caller took them apart already.
func (s *Server) handleOne(ctx context.Context, sess *Session, m *jsonrpc.Message, call *toolCall) (resp *jsonrpc.Response) {
	defer func() {
		if p := recover(); p != nil {
			s.opts.Logger.Error("recovered from a panic", "method", m.Method, "panic", p, "stack", string(debug.Stack()))
			resp = nil
			if !m.Notification() {
				resp = jsonrpc.ErrorResponse(m.ID, jsonrpc.CodeInternalError, "Internal error: the server recovered from a crash while handling "+m.Method+"; it is still running and the crash is in its log", nil)
			}
		}
	}()
	if m.Notification() {
		s.notify(sess, m)
		return nil
	}
	ctx, done := sess.track(ctx, m.ID)
	defer done()
	result, rerr := s.call(ctx, sess, m, call)
	if sess.wasCancelled(m.ID) {
		return nil // the client withdrew the request and expects no answer
	}
	if rerr != nil {
		return &jsonrpc.Response{JSONRPC: "2.0", ID: m.ID, Error: rerr}
	}
	return jsonrpc.ResultResponse(m.ID, result)
}

func (s *Server) call(ctx context.Context, sess *Session, m *jsonrpc.Message, call *toolCall) (any, *jsonrpc.Error) {
	rq, rerr := s.resolve(sess, m)
	if rerr != nil {
		return nil, rerr
	}
	ctx = rq.trace.context(ctx)
	if !rq.stateless && m.Method != "initialize" && !sess.admit(m.Method) {
		s.opts.Logger.Debug("refused a request before initialize", "method", m.Method, "transport", sess.transport)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("Invalid Request: %.100s before initialize; send initialize first, and other requests once it is answered (only ping may come before)", m.Method)}
	}
	result, rerr := s.dispatch(ctx, sess, rq, m, call)
	if rerr != nil || !rq.stateless {
		return result, rerr
	}
	return s.complete(sess, rq, m.Method, result)
}

// dispatch answers a request of either era; what differs between them is
// in rq.
func (s *Server) dispatch(ctx context.Context, sess *Session, rq request, m *jsonrpc.Message, call *toolCall) (any, *jsonrpc.Error) {
	switch m.Method {
	case "initialize":
		if !rq.stateless {
			return s.initialize(ctx, sess, m.Params)
		}
	case "server/discover":
		return s.discover(ctx, sess, rq), nil
	case "ping":
		if !rq.stateless { // 2026-07-28 has no ping
			return struct{}{}, nil
		}
	case "tools/list":
		return s.listTools(ctx, sess, rq), nil
	case "subscriptions/listen":
		if rq.stateless {
			return s.listen(ctx, sess, rq, m)
		}
	case "tools/call":
		if call == nil {
			call = readToolCall(m.Params)
		}
		return s.callTool(ctx, sess, rq, *call)
	}
	if !s.opts.ToolsOnly {
		switch m.Method {
		case "resources/list":
			return s.listResources(ctx, sess, rq)
		case "resources/templates/list":
			// Every resource URI is concrete; answering (rather than -32601)
			// keeps clients that probe after seeing the capability happy.
			return map[string]any{"resourceTemplates": []any{}}, nil
		case "resources/read":
			return s.readResource(ctx, sess, rq, m.Params)
		}
	}
	return nil, jsonrpc.MethodNotFound(m.Method)
}

// notify handles notifications; they never get a response, even when unknown.
func (s *Server) notify(sess *Session, m *jsonrpc.Message) {
	switch m.Method {
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.RequestID != nil {
			sess.cancel(p.RequestID)
		}
	case "notifications/initialized":
		sess.confirm()
	default:
		s.opts.Logger.Debug("ignored notification", "method", m.Method)
	}
}

type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// capabilities are exactly tools and resources (or tools alone); no
// logging, no prompts.
type capabilities struct {
	Tools     toolsCapability     `json:"tools"`
	Resources *resourceCapability `json:"resources,omitempty"`
}

// toolsCapability says listChanged only where it is true: 2026-07-28,
// whose subscriptions/listen tells the tools changing.
type toolsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

type resourceCapability struct {
	Subscribe   bool `json:"subscribe"`
	ListChanged bool `json:"listChanged"`
}

func (s *Server) capabilities() capabilities {
	caps := capabilities{}
	if !s.opts.ToolsOnly {
		caps.Resources = &resourceCapability{}
	}
	return caps
}

type initializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    capabilities   `json:"capabilities"`
	ServerInfo      implementation `json:"serverInfo"`
	Instructions    string         `json:"instructions,omitempty"`
}

func (s *Server) initialize(ctx context.Context, sess *Session, params json.RawMessage) (any, *jsonrpc.Error) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
		Capabilities    struct {
			Elicitation json.RawMessage `json:"elicitation"`
		} `json:"capabilities"`
		ClientInfo struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"clientInfo"`
	}
	if len(params) > 0 && !bytes.Equal(params, []byte("null")) {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: initialize takes {protocolVersion, capabilities, clientInfo: {name, version}}: " + err.Error()}
		}
	}
	version := ProtocolVersions[0]
	for _, v := range ProtocolVersions {
		if v == p.ProtocolVersion {
			version = v
		}
	}
	sess.mu.Lock()
	if sess.phase != phaseNew {
		// The label is on every memory the session wrote; a client may
		// not rename itself halfway through.
		source := sess.source
		sess.mu.Unlock()
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: "Invalid Request: this session is already initialized (as " + source + "), and keeps the client and protocol it agreed then; " +
				"to start over, open a new session (over HTTP, initialize without Mcp-Session-Id; over stdio, start the server again)"}
	}
	sess.phase = phaseInitialized
	sess.source = contract.MCPSource(p.ClientInfo.Name)
	sess.protocol = version
	sess.elicitation = len(p.Capabilities.Elicitation) > 0 && !bytes.Equal(p.Capabilities.Elicitation, []byte("null"))
	sess.mu.Unlock()
	s.opts.Logger.Info("client connected", "client", p.ClientInfo.Name, "client_version", p.ClientInfo.Version,
		"source", sess.Source(), "protocol", version, "transport", sess.transport)
	return initializeResult{
		ProtocolVersion: version,
		Capabilities:    s.capabilities(),
		ServerInfo:      implementation{Name: s.opts.Name, Version: s.opts.Version},
		Instructions:    s.opts.Instructions(s.b.Tools(ctx)),
	}, nil
}

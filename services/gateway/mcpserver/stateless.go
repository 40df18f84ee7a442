package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
)

// MCP 2026-07-28 has no handshake and no session: every request says in
// its _meta which revision it speaks and who sends it, and every result
// says resultType and who answered. A request that names such a revision
// is served on its own, whatever the session it arrives on has agreed or
// not; any other request goes through the session as before. Both take the
// same path from dispatch on.

// StatelessVersions are the MCP revisions without a handshake this server
// speaks, newest first.
var StatelessVersions = []string{"2026-07-28"}

// SupportedVersions are every revision this server speaks, newest first:
// what server/discover lists and an unsupported version is answered with.
func SupportedVersions() []string {
	return slices.Concat(StatelessVersions, ProtocolVersions)
}

// The _meta keys of 2026-07-28.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// Error codes MCP reserves for itself (-32020 to -32099).
const (
	CodeHeaderMismatch             = -32020
	CodeUnsupportedProtocolVersion = -32022
)

// requestMeta is what a request's _meta says of it.
type requestMeta struct {
	version    string
	clientName string
	// elicitation: the client declared it takes elicitation requests
	// (as input_required's inputRequests).
	elicitation bool
	trace       traceMeta
}

// readMeta reads params._meta, and reports whether it names a protocol
// version. Requests of the handshake era carry none, and are told apart
// with one scan for the key before anything is decoded. A W3C trace
// context in _meta is read whatever the era.
func readMeta(params json.RawMessage) (requestMeta, bool) {
	versioned := bytes.Contains(params, []byte(MetaProtocolVersion))
	if !versioned && !bytes.Contains(params, []byte(MetaTraceparent)) {
		return requestMeta{}, false
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return requestMeta{}, false
	}
	rm := requestMeta{trace: readTraceMeta(p.Meta)}
	if p.Meta[MetaProtocolVersion] == nil {
		return rm, false
	}
	_ = json.Unmarshal(p.Meta[MetaProtocolVersion], &rm.version) // not a string: an unsupported version
	var info struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(p.Meta[MetaClientInfo], &info) == nil {
		rm.clientName = info.Name
	}
	var caps struct {
		Elicitation json.RawMessage `json:"elicitation"`
	}
	if json.Unmarshal(p.Meta[MetaClientCapabilities], &caps) == nil {
		rm.elicitation = len(caps.Elicitation) > 0 && !bytes.Equal(caps.Elicitation, []byte("null"))
	}
	return rm, true
}

// RequestVersion is the protocol version a request's _meta names, "" when
// none: what a transport compares its own headers with.
func RequestVersion(params json.RawMessage) string {
	rm, _ := readMeta(params)
	return rm.version
}

// resolve says in which era m is served and who sends it. A request whose
// _meta names a stateless revision is served as that revision, labelled
// with the clientInfo it carries; one naming a revision this server does
// not speak is refused; server/discover comes before any agreement and is
// answered whatever it names. Everything else is the session's.
func (s *Server) resolve(sess *Session, m *jsonrpc.Message) (request, *jsonrpc.Error) {
	rm, named := readMeta(m.Params)
	switch {
	case named && slices.Contains(StatelessVersions, rm.version):
		return request{protocol: rm.version, source: contract.MCPSource(rm.clientName), stateless: true, elicitation: rm.elicitation, trace: rm.trace}, nil
	case named && !slices.Contains(ProtocolVersions, rm.version):
		return request{}, UnsupportedVersion(rm.version)
	case m.Method == "server/discover":
		return request{protocol: StatelessVersions[0], source: contract.MCPSource(rm.clientName), stateless: true, trace: rm.trace}, nil
	}
	rq := sess.agreed()
	rq.trace = rm.trace
	return rq, nil
}

// UnsupportedVersion is the error for a request in a revision this server
// does not speak, with the ones it does so the client can retry in one.
func UnsupportedVersion(requested string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: CodeUnsupportedProtocolVersion,
		Message: "Unsupported protocol version " + strings.TrimSpace(requested) + "; this server speaks " + strings.Join(SupportedVersions(), ", "),
		Data:    map[string]any{"supported": SupportedVersions(), "requested": requested}}
}

// discoverResult is server/discover's answer less what complete adds.
type discoverResult struct {
	SupportedVersions []string     `json:"supportedVersions"`
	Capabilities      capabilities `json:"capabilities"`
	Instructions      string       `json:"instructions,omitempty"`
}

func (s *Server) discover(ctx context.Context, sess *Session, rq request) any {
	// Without a handshake this is the nearest thing to a client connecting.
	s.opts.Logger.Info("client discovered the server", "source", rq.source, "protocol", rq.protocol, "transport", sess.transport)
	caps := s.capabilities()
	caps.Tools.ListChanged = true // subscriptions/listen (listen.go)
	return discoverResult{SupportedVersions: SupportedVersions(), Capabilities: caps, Instructions: s.opts.Instructions(s.b.Tools(ctx))}
}

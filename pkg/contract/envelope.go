package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"time"
)

// Transport labels say how a call reached the gateway.
const (
	TransportMCPStdio = "mcp_stdio"
	TransportMCPHTTP  = "mcp_http"
	TransportJSONRPC  = "json_rpc"
	TransportCLI      = "cli"
	TransportAgent    = "agent"
)

// DefaultCallTimeout bounds a tool call when nothing else does: the
// default of [tools] timeout_seconds, of the gateway's Options.Timeout, and
// of a bus call whose context has no deadline.
const DefaultCallTimeout = 30 * time.Second

// CallContext travels with every request on the bus.
type CallContext struct {
	// Source is the provenance label: "mcp:cursor", "mcp", "cli", ...
	Source    string `json:"source"`
	Transport string `json:"transport,omitempty"`
	// MinSeq asks a replica to catch up to this write sequence before reading.
	MinSeq uint64 `json:"min_seq,omitempty"`
	// TimeoutMS is the time the caller will still wait, measured when sent. It is
	// relative so that clocks of different hosts need not agree.
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// Agent is the sub-agent making the call, and Depth how many sub-agent
	// runs deep it is (0 for a client's own call).
	Agent string `json:"agent,omitempty"`
	Depth int    `json:"depth,omitempty"`
	// Token is the name of the HTTP bearer token the call came with, never
	// the token itself; empty for stdio, the command line and an HTTP edge
	// with no tokens configured.
	Token string `json:"token,omitempty"`
	// Scopes, when not nil, are the only scopes the caller holds (a bearer
	// token's); nil is every scope (stdio, the command line, an HTTP edge
	// with no tokens configured).
	Scopes []string `json:"scopes,omitempty"`
	// Workspaces, when not empty, are the only workspaces the caller may
	// read or write. The memory service enforces it on every call; a
	// service believes it, and the rest of the context, only when the
	// gateway signed it (pkg/callauth), so a client that reaches NATS
	// directly cannot widen it or leave it out.
	Workspaces []string `json:"workspaces,omitempty"`
	// Call names one client call, given by the gateway, and is passed on
	// to what the call sets off: a sub-agent's call waiting for approval
	// carries it, so the session that ran the agent can be asked.
	Call string `json:"call,omitempty"`
}

// Holds reports whether the caller holds scope.
func (c CallContext) Holds(scope string) bool {
	return c.Scopes == nil || slices.Contains(c.Scopes, scope)
}

// Scoped reports whether the caller is limited to some workspaces.
func (c CallContext) Scoped() bool { return len(c.Workspaces) > 0 }

// MaySee reports whether the caller may see an item of workspace ws.
func (c CallContext) MaySee(ws string) bool {
	return !c.Scoped() || slices.Contains(c.Workspaces, ws)
}

// Timeout returns the remaining time the caller allowed, or 0 when unbounded.
func (c CallContext) Timeout() time.Duration { return time.Duration(c.TimeoutMS) * time.Millisecond }

// Request is the body of every bus request.
type Request struct {
	Params json.RawMessage `json:"params"`
	Ctx    CallContext     `json:"ctx"`
}

// Reply is the body of every bus reply: exactly one of Result and Error is set.
type Reply struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// EncodeRequest builds a request envelope around params that are already
// valid JSON (a caller's arguments, passed on as they came), without
// encoding them a second time. Empty params are sent as null.
func EncodeRequest(params json.RawMessage, cc CallContext) ([]byte, error) {
	ctx, err := json.Marshal(cc)
	if err != nil {
		return nil, err
	}
	if len(params) == 0 {
		params = json.RawMessage("null")
	}
	out := make([]byte, 0, len(params)+len(ctx)+20)
	out = append(append(out, `{"params":`...), params...)
	out = append(append(out, `,"ctx":`...), ctx...)
	return append(out, '}'), nil
}

var (
	resultPrefix = []byte(`{"result":`)
	resultSuffix = []byte(`}`)
)

// EncodeResult builds the reply envelope around a result that is already
// valid JSON, without encoding it a second time.
func EncodeResult(result json.RawMessage) []byte {
	out := make([]byte, 0, len(resultPrefix)+len(result)+1)
	return append(append(append(out, resultPrefix...), result...), resultSuffix...)
}

// DecodeReply reads a reply envelope. A success reply as EncodeResult writes
// it is sliced, not decoded: results can be large and are passed on as they
// are. data must not be modified afterwards.
func DecodeReply(data []byte) (Reply, error) {
	if bytes.HasPrefix(data, resultPrefix) && bytes.HasSuffix(data, resultSuffix) {
		if result := data[len(resultPrefix) : len(data)-len(resultSuffix)]; ValidJSON(result) {
			return Reply{Result: result}, nil
		}
	}
	var r Reply
	if err := json.Unmarshal(data, &r); err != nil {
		return Reply{}, err
	}
	if r.Result == nil && r.Error == nil {
		return Reply{}, errors.New("a reply must hold a result or an error")
	}
	return r, nil
}

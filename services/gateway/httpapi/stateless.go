package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
	"github.com/openhuman-go/openhuman-go/services/gateway/mcpserver"
)

// MCP 2026-07-28 over Streamable HTTP: every POST is one request that
// stands alone. It names no session; the Mcp-Method and Mcp-Name headers
// repeat what the body says, for proxies that route on them, and must
// match it. The caller's token is checked on each request as on any other,
// and a session made for the one request carries its owner, so the
// scope-filtered tools/list and every scope check apply per request.
// Nothing is kept between requests: any gateway on the same bus can
// answer any of them.

const (
	headerMethod = "Mcp-Method"
	headerName   = "Mcp-Name"
)

// statelessRequest reports whether a POST is a 2026-07-28 request: its
// Mcp-Protocol-Version header names a stateless revision, its _meta names
// one other than a handshake revision, or
// it is server/discover outside any session (discovery comes before a
// revision is chosen). m is the request, nil when body is not one (a
// batch, or not JSON-RPC).
func statelessRequest(r *http.Request, body []byte) (m *jsonrpc.Message, stateless bool) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		m, _ = jsonrpc.Decode(trimmed)
	}
	if slices.Contains(mcpserver.StatelessVersions, r.Header.Get(headerProtocol)) {
		return m, true
	}
	if m == nil {
		return nil, false
	}
	// A request naming a revision of neither era is the stateless path's
	// to refuse: the handshake era never names one in _meta.
	if v := mcpserver.RequestVersion(m.Params); v != "" && !slices.Contains(mcpserver.ProtocolVersions, v) {
		return m, true
	}
	return m, m.Method == "server/discover" && r.Header.Get(headerSession) == ""
}

func (s *Server) mcpStateless(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
	if m == nil {
		writeRPC(w, http.StatusBadRequest, jsonrpc.ErrorResponse(nil, jsonrpc.CodeInvalidRequest,
			"Invalid Request: a 2026-07-28 POST carries one JSON-RPC request object (not a batch, nor a response)", nil))
		return
	}
	if m.Notification() {
		// The revision defines none over HTTP (a request is withdrawn by
		// closing its stream), and there is no session one could change.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if e := checkHeaders(r.Header, m); e != nil {
		writeRPC(w, http.StatusBadRequest, &jsonrpc.Response{JSONRPC: "2.0", ID: m.ID, Error: e})
		return
	}
	sess := mcpserver.NewSession(contract.TransportMCPHTTP)
	claimSession(r.Context(), sess) // a new session: the request's caller owns it
	if m.Method == "subscriptions/listen" && acceptsEventStream(r.Header.Get("Accept")) {
		s.listen(w, r, sess, m)
		return
	}
	resp := s.mcp.Answer(r.Context(), sess, m)
	if resp == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	status := http.StatusOK
	if resp.Error != nil && statelessStatus[resp.Error.Code] != 0 {
		status = statelessStatus[resp.Error.Code]
	}
	writeRPC(w, status, resp)
}

// listen answers subscriptions/listen with an event stream: the
// subscription's notifications, a comment every heartbeat so that proxies
// keep an idle stream open, and its result when the server ends it.
func (s *Server) listen(w http.ResponseWriter, r *http.Request, sess *mcpserver.Session, m *jsonrpc.Message) {
	stream := &eventStream{w: w}
	ctx, stop := context.WithCancel(mcpserver.WithPush(r.Context(), stream.push))
	defer stop()
	go func() {
		t := time.NewTicker(s.opts.Heartbeat)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if stream.comment("heartbeat") != nil {
					stop() // the client is gone: so is the subscription
					return
				}
			}
		}
	}()
	resp := s.mcp.Answer(ctx, sess, m)
	if resp == nil {
		stream.final(nil)
		return
	}
	out := jsonrpc.Encode(resp)
	if !stream.final(out) {
		writeRPC(w, http.StatusOK, resp) // refused before it began
	}
}

// statelessStatus are the errors 2026-07-28 gives an HTTP status of their own.
var statelessStatus = map[int]int{
	jsonrpc.CodeMethodNotFound:               http.StatusNotFound,
	mcpserver.CodeHeaderMismatch:             http.StatusBadRequest,
	mcpserver.CodeUnsupportedProtocolVersion: http.StatusBadRequest,
}

// checkHeaders compares a stateless request's headers with its body. A bare
// server/discover, naming no revision anywhere, has none to compare.
func checkHeaders(h http.Header, m *jsonrpc.Message) *jsonrpc.Error {
	version, inBody := h.Get(headerProtocol), mcpserver.RequestVersion(m.Params)
	if version == "" && inBody == "" {
		return nil
	}
	if version != inBody {
		return mismatch(headerProtocol+" %q does not match the body's _meta protocolVersion %q", version, inBody)
	}
	if got := h.Get(headerMethod); got != m.Method {
		return mismatch(headerMethod+" %q does not match the body's method %q", got, m.Method)
	}
	key := map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}[m.Method]
	if key == "" {
		return nil
	}
	// Read as the method's handler reads it (keys matched without regard
	// to case, the last of a name winning), so the name compared is the
	// name served.
	var params struct {
		Name json.RawMessage `json:"name"`
		URI  json.RawMessage `json:"uri"`
	}
	var name string
	if json.Unmarshal(m.Params, &params) != nil || json.Unmarshal(map[string]json.RawMessage{"name": params.Name, "uri": params.URI}[key], &name) != nil {
		return mismatch("the body of %s has no string params.%s for "+headerName+" to match", m.Method, key)
	}
	if got, ok := headerValue(h.Get(headerName)); !ok || got != name {
		return mismatch(headerName+" %q does not match the body's %s %q", h.Get(headerName), key, name)
	}
	return nil
}

func mismatch(format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: mcpserver.CodeHeaderMismatch, Message: "Header mismatch: " + fmt.Sprintf(format, args...)}
}

// headerValue decodes a header value sent as =?base64?…?= (a name that is
// not plain ASCII), and reports false for one that does not decode.
func headerValue(v string) (string, bool) {
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok || !strings.HasSuffix(inner, "?=") {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(inner, "?="))
	return string(b), err == nil
}

// writeRPC answers with a JSON-RPC response and status.
func writeRPC(w http.ResponseWriter, status int, resp *jsonrpc.Response) {
	out := jsonrpc.Encode(resp)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(status)
	_, _ = w.Write(out)
}

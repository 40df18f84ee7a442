package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
	"github.com/openhuman-go/openhuman-go/services/gateway/mcpserver"
)

// MCP over Streamable HTTP. Every POST carries one message or batch and is
// answered with application/json, unless the server sends the client a
// request of its own while handling it (elicitation, to a client that
// accepts text/event-stream): then the answer becomes an event stream
// carrying that request and, last, the response. The server pushes nothing
// outside a request, so GET is 405. initialize opens a session, named by
// the Mcp-Session-Id header on every later request; DELETE ends it, and a
// session unused for SessionIdle expires (sessions.go has the limits).
// A 2026-07-28 request needs no session at all (stateless.go).

const (
	headerSession  = "Mcp-Session-Id"
	headerProtocol = "Mcp-Protocol-Version"
)

func (s *Server) mcpPost(w http.ResponseWriter, r *http.Request) {
	if !acceptsJSON(r.Header.Get("Accept")) {
		writeError(w, http.StatusNotAcceptable, "Not Acceptable: the Accept header must allow application/json")
		return
	}
	if !versionSpoken(w, r) {
		return
	}
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	if m, stateless := statelessRequest(r, body); stateless {
		s.mcpStateless(w, r, m)
		return
	}
	var sess *mcpserver.Session
	var done func(called bool)
	id := r.Header.Get(headerSession)
	if id != "" {
		sess, done = s.sessions.use(id)
	}
	opened := false
	switch {
	case sess != nil:
		// initialize on a live session is the session's to refuse: a
		// client does not get to rename itself by sending it again.
	case isInitialize(body):
		var err error
		if id, sess, done, err = s.sessions.open(sessionKeys(r)); err != nil {
			writeContractError(w, err)
			return
		}
		opened = true
	case id == "":
		writeError(w, http.StatusBadRequest, "Bad Request: "+headerSession+" header is required; send initialize first")
		return
	default:
		writeError(w, http.StatusNotFound, "Session not found: it expired or was closed; send initialize to start a new one")
		return
	}
	var out []byte
	// Whether the session made a call: a request after initialize, which
	// a session opened to be abandoned never makes (see sessions).
	defer func() { done(!opened && out != nil) }()
	if !claimSession(r.Context(), sess) { // answered as if unknown: the id is another token's
		writeError(w, http.StatusNotFound, "Session not found: it expired or was closed; send initialize to start a new one")
		return
	}
	if mcpserver.IsResponse(body) {
		// The client answering a request of the server's: the request
		// that asked waits for it, so it must not wait in line behind it.
		s.mcp.Handle(r.Context(), sess, body)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	wait, answered := sess.Order(body)
	defer answered()
	select {
	case <-wait:
	case <-r.Context().Done():
		return
	}
	w.Header().Set(headerSession, id)
	ctx := r.Context()
	var stream *eventStream
	if acceptsEventStream(r.Header.Get("Accept")) {
		stream = &eventStream{w: w}
		ctx = mcpserver.WithPush(ctx, stream.push)
	}
	out = s.mcp.Handle(ctx, sess, body)
	if stream != nil && stream.final(out) {
		return
	}
	if out == nil {
		w.WriteHeader(http.StatusAccepted) // notifications and responses only
		return
	}
	writeEncoded(w, out)
}

// versionSpoken answers 400 with -32022 and reports false when the
// request's Mcp-Protocol-Version names a revision this server does not speak.
func versionSpoken(w http.ResponseWriter, r *http.Request) bool {
	v := r.Header.Get(headerProtocol)
	if v == "" || slices.Contains(mcpserver.SupportedVersions(), v) {
		return true
	}
	e := mcpserver.UnsupportedVersion(v)
	e.Message = "Bad Request: unsupported " + headerProtocol + " " + v + "; supported: " + strings.Join(mcpserver.SupportedVersions(), ", ")
	writeRPC(w, http.StatusBadRequest, &jsonrpc.Response{JSONRPC: "2.0", Error: e})
	return false
}

// mcpGet would open a stream of server-initiated messages; this server sends
// none, which the transport allows it to say with 405.
func (s *Server) mcpGet(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Allow", "POST, DELETE")
	writeError(w, http.StatusMethodNotAllowed, "Method Not Allowed: this server sends no server-initiated messages; POST requests to /mcp")
}

func (s *Server) mcpDelete(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(headerSession)
	if id == "" {
		writeError(w, http.StatusBadRequest, "Bad Request: "+headerSession+" header is required")
		return
	}
	if sess := s.sessions.get(id); sess != nil && !claimSession(r.Context(), sess) {
		writeError(w, http.StatusNotFound, "Session not found")
		return
	}
	if !s.sessions.close(id) {
		writeError(w, http.StatusNotFound, "Session not found")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func acceptsJSON(accept string) bool {
	if accept == "" {
		return true
	}
	for _, part := range strings.Split(accept, ",") {
		mt := strings.TrimSpace(strings.SplitN(part, ";", 2)[0])
		if mt == "application/json" || mt == "application/*" || mt == "*/*" {
			return true
		}
	}
	return false
}

// isInitialize reports whether body is a single initialize request.
func isInitialize(body []byte) bool {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return false
	}
	var m struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &m) == nil && m.Method == "initialize"
}

// acceptsEventStream reports whether the client takes a response as an
// event stream.
func acceptsEventStream(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		if mt := strings.TrimSpace(strings.SplitN(part, ";", 2)[0]); mt == "text/event-stream" {
			return true
		}
	}
	return false
}

// eventStream turns a POST's answer into a server-sent event stream when
// the server first pushes a message, and ends it with the response.
type eventStream struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	started bool
	failed  bool
}

func (e *eventStream) push(msg []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.failed {
		return errStreamGone
	}
	if !e.started {
		e.w.Header().Set("Content-Type", "text/event-stream")
		e.w.Header().Set("Cache-Control", "no-store")
		e.w.WriteHeader(http.StatusOK)
		e.started = true
	}
	if _, err := fmt.Fprintf(e.w, "event: message\ndata: %s\n\n", msg); err != nil {
		e.failed = true
		return err
	}
	if err := http.NewResponseController(e.w).Flush(); err != nil {
		e.failed = true
		return err
	}
	return nil
}

// comment sends an event-stream comment, which clients ignore, once the
// stream has started.
func (e *eventStream) comment(text string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.failed {
		return errStreamGone
	}
	if !e.started {
		return nil
	}
	if _, err := fmt.Fprintf(e.w, ": %s\n\n", text); err != nil {
		e.failed = true
		return err
	}
	if err := http.NewResponseController(e.w).Flush(); err != nil {
		e.failed = true
		return err
	}
	return nil
}

// final sends out as the stream's last event, if the stream started, and
// reports whether it had.
func (e *eventStream) final(out []byte) bool {
	e.mu.Lock()
	started := e.started
	e.mu.Unlock()
	if started && out != nil {
		_ = e.push(out)
	}
	e.mu.Lock()
	e.failed = true // the handler is done with w: nothing more goes out
	e.mu.Unlock()
	return started
}

var errStreamGone = errors.New("the client's event stream is gone")

package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/openhuman-go/openhuman-go/services/gateway/mcpserver"
)

// MCP over Streamable HTTP. Every POST carries one message or batch and is
// answered with application/json (the server has nothing to push, so there
// is no event stream: GET is 405). initialize opens a session, named by the
// Mcp-Session-Id header on every later request; DELETE ends it, and a
// session unused for SessionIdle expires (sessions.go has the limits).

const (
	headerSession  = "Mcp-Session-Id"
	headerProtocol = "Mcp-Protocol-Version"
)

func (s *Server) mcpPost(w http.ResponseWriter, r *http.Request) {
	if !acceptsJSON(r.Header.Get("Accept")) {
		writeError(w, http.StatusNotAcceptable, "Not Acceptable: the Accept header must allow application/json")
		return
	}
	if v := r.Header.Get(headerProtocol); v != "" && !slices.Contains(mcpserver.ProtocolVersions, v) {
		writeError(w, http.StatusBadRequest, "Bad Request: unsupported "+headerProtocol+" "+v+"; supported: "+strings.Join(mcpserver.ProtocolVersions, ", "))
		return
	}
	body, ok := readBody(w, r)
	if !ok {
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
	wait, answered := sess.Order(body)
	defer answered()
	select {
	case <-wait:
	case <-r.Context().Done():
		return
	}
	out = s.mcp.Handle(r.Context(), sess, body)
	w.Header().Set(headerSession, id)
	if out == nil {
		w.WriteHeader(http.StatusAccepted) // notifications and responses only
		return
	}
	writeEncoded(w, out)
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

package httpapi

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/mcpserver"
)

// MCP over Streamable HTTP. Every POST carries one message or batch and is
// answered with application/json (the server has nothing to push, so there
// is no event stream: GET is 405). initialize opens a session, named by the
// Mcp-Session-Id header on every later request; DELETE ends it, and a
// session unused for SessionIdle expires.

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
	id := r.Header.Get(headerSession)
	switch {
	case isInitialize(body):
		var err error
		if id, sess, err = s.sessions.open(); err != nil {
			writeError(w, http.StatusServiceUnavailable, err.Error())
			return
		}
	case id == "":
		writeError(w, http.StatusBadRequest, "Bad Request: "+headerSession+" header is required; send initialize first")
		return
	default:
		if sess = s.sessions.get(id); sess == nil {
			writeError(w, http.StatusNotFound, "Session not found: it expired or was closed; send initialize to start a new one")
			return
		}
	}
	wait, done := sess.Order(body)
	defer done()
	select {
	case <-wait:
	case <-r.Context().Done():
		return
	}
	out := s.mcp.Handle(r.Context(), sess, body)
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

// sessions are the live MCP-over-HTTP sessions. Expired ones are dropped
// when met and whenever a new one opens, so nothing runs in the background.
type sessions struct {
	mu   sync.Mutex
	idle time.Duration
	max  int
	now  func() time.Time
	byID map[string]*liveSession
}

type liveSession struct {
	sess     *mcpserver.Session
	lastUsed time.Time
}

func newSessions(idle time.Duration, max int, now func() time.Time) *sessions {
	return &sessions{idle: idle, max: max, now: now, byID: map[string]*liveSession{}}
}

type errTooManySessions struct{}

func (errTooManySessions) Error() string {
	return "Service Unavailable: too many open MCP sessions; close unused ones with DELETE /mcp or wait for them to expire"
}

func (s *sessions) open() (string, *mcpserver.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for id, ls := range s.byID {
		if now.Sub(ls.lastUsed) > s.idle {
			delete(s.byID, id)
		}
	}
	if len(s.byID) >= s.max {
		return "", nil, errTooManySessions{}
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	sess := mcpserver.NewSession(contract.TransportMCPHTTP)
	s.byID[id] = &liveSession{sess: sess, lastUsed: now}
	return id, sess, nil
}

func (s *sessions) get(id string) *mcpserver.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	ls, ok := s.byID[id]
	if !ok {
		return nil
	}
	now := s.now()
	if now.Sub(ls.lastUsed) > s.idle {
		delete(s.byID, id)
		return nil
	}
	ls.lastUsed = now
	return ls.sess
}

func (s *sessions) close(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.byID[id]
	delete(s.byID, id)
	return ok
}

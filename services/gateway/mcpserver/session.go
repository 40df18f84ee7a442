package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Session is one client's state: where it is in the lifecycle, its
// provenance label and negotiated version, and the requests it has in flight
// (so notifications/cancelled can stop them).
type Session struct {
	transport string
	mu        sync.Mutex
	phase     phase
	source    string
	protocol  string
	inflight  map[string]*inflight
	// lastWrite closes when the most recent write-capable call has been
	// answered; see order.
	lastWrite chan struct{}

	// owner is the bearer token the session was opened with (see Claim).
	owner *owner

	// elicitation is true when the client declared the capability;
	// outgoing are the server's requests waiting for the client's answer
	// (elicit.go), by id.
	elicitation bool
	outSeq      int
	outgoing    map[string]chan answer
}

// Order schedules a message that runs concurrently with others: it returns a
// channel to wait on before handling data, and a func to call once answered.
// Every call waits for the writes sent before it, so a session reads its own
// writes even when a client pipes "learn" and "recall" without waiting
// between them. Reads never wait for reads.
//
// A request's id is known to the session from here on, so a
// notifications/cancelled read right after it stops it even if its
// handler has not started yet.
func (s *Session) Order(data []byte) (wait <-chan struct{}, done func()) {
	return s.schedule(readIncoming(data))
}

// schedule is Order for a message already read, decoded once for both.
func (s *Session) schedule(in incoming) (wait <-chan struct{}, done func()) {
	wait, answered := s.order(in.writes())
	if in.m == nil || in.m.Notification() {
		return wait, answered
	}
	key := string(in.m.ID)
	s.mu.Lock()
	if _, dup := s.inflight[key]; !dup {
		s.inflight[key] = &inflight{}
	}
	s.mu.Unlock()
	return wait, func() {
		answered()
		s.mu.Lock()
		if f := s.inflight[key]; f != nil && f.cancel == nil {
			delete(s.inflight, key) // announced, never tracked
		}
		s.mu.Unlock()
	}
}

func (s *Session) order(write bool) (wait <-chan struct{}, done func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	prev := s.lastWrite
	if prev == nil {
		prev = closedChan
	}
	if !write {
		return prev, func() {}
	}
	mine := make(chan struct{})
	s.lastWrite = mine
	return prev, func() { close(mine) }
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// inflight is a request the session knows of: announced by Order, then
// tracked (cancel set) while its handler runs.
type inflight struct {
	cancel    context.CancelFunc
	cancelled bool
}

// NewSession starts a session on the named transport (contract.TransportMCPStdio, ...).
func NewSession(transport string) *Session {
	return &Session{transport: transport, source: contract.MCPSource(""), inflight: map[string]*inflight{}}
}

// phase is where a session is in MCP's lifecycle.
type phase int

const (
	// phaseNew serves initialize and ping only: a client that has not
	// said who it is has no label to write memory under.
	phaseNew phase = iota
	// phaseInitialized has answered initialize. Requests are served from
	// here on: the spec asks clients to wait only for initialize's
	// answer, and many send tools/list before notifications/initialized.
	phaseInitialized
	// phaseReady has heard from the client again after initialize:
	// notifications/initialized or any other request.
	phaseReady
)

// Ready reports whether the client got past initialize: it sent
// notifications/initialized or another request after initialize was
// answered. A session that never gets there was opened and abandoned,
// which over HTTP is what a flood of initialize requests leaves behind.
func (s *Session) Ready() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.phase == phaseReady
}

// admit reports whether a request for method, other than initialize, may
// be served now; once initialized, any request makes the session ready.
func (s *Session) admit(method string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.phase == phaseNew {
		return method == "ping"
	}
	s.phase = phaseReady
	return true
}

// confirm takes notifications/initialized: ready, if initialize was answered.
func (s *Session) confirm() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.phase == phaseInitialized {
		s.phase = phaseReady
	}
}

// Source is the session's provenance label.
func (s *Session) Source() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.source
}

// request is what the server knows of a request's caller. In the
// handshake era it is what the session agreed at initialize; from
// 2026-07-28 on it is what the request's own _meta says (stateless.go).
// Everything past dispatch reads this, not the session, so both eras share
// one path.
type request struct {
	protocol    string // "" before a handshake: the newest is assumed
	source      string // the provenance label on what the request writes
	elicitation bool   // the client takes elicitation/create
	stateless   bool   // 2026-07-28 or later: no handshake, results say resultType
	trace       traceMeta
}

// structured reports whether the request's protocol has structured tool
// output. A session that has not negotiated one speaks the newest.
func (r request) structured() bool {
	return r.protocol == "" || r.protocol >= structuredSince // revisions are dates
}

// agreed is what the session agreed at initialize.
func (s *Session) agreed() request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return request{protocol: s.protocol, source: s.source, elicitation: s.elicitation}
}

// callContext is what a tool or resource call carries: the request's
// label, and the session's transport and owner.
func (s *Session) callContext(r request) contract.CallContext {
	s.mu.Lock()
	defer s.mu.Unlock()
	cc := contract.CallContext{Source: r.source, Transport: s.transport}
	if s.owner != nil {
		cc.Token, cc.Scopes, cc.Workspaces = s.owner.token, s.owner.scopes, s.owner.workspaces
	}
	return cc
}

type owner struct {
	token      string
	scopes     []string
	workspaces []string
}

// Claim makes the HTTP bearer token named token (holding scopes, limited
// to workspaces) the session's owner if it has none yet, and reports
// whether token owns it: every call of the session carries the owner's
// name, scopes and workspaces,
// and a session id is of no use with another token, nor with one of the
// same name that holds other scopes or workspaces (two OAuth or OIDC
// tokens of one caller need not). token is "" when the edge has no tokens.
func (s *Session) Claim(token string, scopes, workspaces []string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.owner == nil {
		s.owner = &owner{token: token, scopes: scopes, workspaces: workspaces}
	}
	return s.owner.token == token && slices.Equal(s.owner.scopes, scopes) && slices.Equal(s.owner.workspaces, workspaces)
}

func (sess *Session) track(ctx context.Context, id json.RawMessage) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	key := string(id)
	sess.mu.Lock()
	f := sess.inflight[key]
	if f == nil {
		f = &inflight{}
		sess.inflight[key] = f
	}
	f.cancel = cancel
	if f.cancelled { // cancelled between Order and now
		cancel()
	}
	sess.mu.Unlock()
	return ctx, func() {
		cancel()
		sess.mu.Lock()
		delete(sess.inflight, key)
		sess.mu.Unlock()
	}
}

func (sess *Session) cancel(id json.RawMessage) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if f, ok := sess.inflight[string(bytes.TrimSpace(id))]; ok {
		f.cancelled = true
		if f.cancel != nil {
			f.cancel()
		}
	}
}

func (sess *Session) wasCancelled(id json.RawMessage) bool {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	f, ok := sess.inflight[string(id)]
	return ok && f.cancelled
}

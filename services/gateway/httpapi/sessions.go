package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/clientaddr"
	"github.com/openhuman-go/openhuman-go/services/gateway/mcpserver"
)

// pendingTTL is how long a session may stay short of ready (see
// mcpserver.Session.Ready): a real client sends notifications/initialized
// or its first request at once, so one that has not within a minute was
// opened to be abandoned.
const pendingTTL = time.Minute

// sessionKey is one thing a session counts against, with a cap per kind:
// its client's address, and any other key the edge learns of a caller
// (a token's name, say) by adding a kind, a limit and a line to
// sessionKeys.
type sessionKey struct {
	kind, value string
}

const (
	keyAddress = "address"
	keyToken   = "token"
)

// loopbackClient is the key every loopback address counts as (see
// clientaddr.Key): any local process may connect from any of them (157
// addresses once held 10,000 sessions between them).
const loopbackClient = "loopback"

// sessionKeys are the keys a session opened by r counts against. The
// address is the client's (clientaddr): the connection's, or behind a
// proxy of http.trusted_proxies the one it forwarded for. The
// token's cap keeps one token, leaked or looping, from taking the sessions
// of the others wherever it is used from.
//
// With tokens, the address's cap is counted per token there: a client
// that holds a token must not, by filling its address's cap, make another
// token's client on the same host or behind the same proxy give way.
func sessionKeys(r *http.Request) []sessionKey {
	addr := clientaddr.Key(r.RemoteAddr)
	c := callerFromContext(r.Context())
	if c == nil {
		return []sessionKey{{keyAddress, addr}}
	}
	return []sessionKey{{keyAddress, addr + " with token " + c.name}, {keyToken, c.name}}
}

// sessionLimits bound the live MCP-over-HTTP sessions.
type sessionLimits struct {
	idle   time.Duration  // a session unused this long ends
	max    int            // sessions in all
	perKey map[string]int // sessions per key, by kind; a kind not named is not capped
}

// sessions are the live MCP-over-HTTP sessions. Expired ones are dropped
// when met and whenever a new one opens, so nothing runs in the
// background. A cap that is reached makes room rather than refuse: it
// closes a session no request is being handled on, one that never got
// ready first, then one that never made a call, then the one unused the
// longest. A flood of sessions displaces itself before any client that
// uses its session, and no flood locks anyone out: a client whose idle
// session was closed is answered 404 and, as the transport asks of it,
// starts a new one. Only when every session under the cap is handling a
// request is a new one refused.
type sessions struct {
	mu    sync.Mutex
	lim   sessionLimits
	now   func() time.Time
	byID  map[string]*liveSession
	count map[sessionKey]int
}

type liveSession struct {
	sess     *mcpserver.Session
	keys     []sessionKey
	opened   time.Time
	lastUsed time.Time
	busy     int  // requests being handled
	called   bool // it made a request after initialize
}

func (ls *liveSession) expired(now time.Time, idle time.Duration) bool {
	return now.Sub(ls.lastUsed) > idle || now.Sub(ls.opened) > pendingTTL && !ls.sess.Ready()
}

// rank orders sessions by how readily they give way: lower first.
func (ls *liveSession) rank() int {
	switch {
	case !ls.sess.Ready():
		return 0
	case !ls.called:
		return 1
	}
	return 2
}

func newSessions(lim sessionLimits, now func() time.Time) *sessions {
	return &sessions{lim: lim, now: now, byID: map[string]*liveSession{}, count: map[sessionKey]int{}}
}

// open starts a session counted against keys, handling its initialize
// until done is called. It fails with RATE_LIMITED when every session
// under a key's cap is handling a request, and UNAVAILABLE when every
// session under the server's is.
func (s *sessions) open(keys []sessionKey) (string, *mcpserver.Session, func(called bool), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for id, ls := range s.byID {
		if ls.expired(now, s.lim.idle) {
			s.drop(id)
		}
	}
	for _, k := range keys {
		limit, capped := s.lim.perKey[k.kind]
		if capped && s.count[k] >= limit && !s.giveWay(&k) {
			return "", nil, nil, contract.Errorf(contract.CodeRateLimited,
				"Too Many Requests: all %d MCP sessions allowed for %s %s are handling a request; try again once one is answered, or close unused ones with DELETE /mcp",
				limit, k.kind, k.value).With("limit", limit)
		}
	}
	if len(s.byID) >= s.lim.max && !s.giveWay(nil) {
		return "", nil, nil, contract.Errorf(contract.CodeUnavailable,
			"Service Unavailable: the server's %d MCP sessions are all handling a request; try again once one is answered", s.lim.max).With("limit", s.lim.max)
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	sess := mcpserver.NewSession(contract.TransportMCPHTTP)
	ls := &liveSession{sess: sess, keys: keys, opened: now, lastUsed: now, busy: 1}
	s.byID[id] = ls
	for _, k := range keys {
		s.count[k]++
	}
	return id, sess, s.doneFunc(ls), nil
}

// giveWay closes the session that gives way first (see sessions), of key
// when key is not nil, and reports whether there was one to close.
func (s *sessions) giveWay(key *sessionKey) bool {
	var pick string
	var best *liveSession
	for id, ls := range s.byID {
		if ls.busy > 0 || key != nil && !slices.Contains(ls.keys, *key) {
			continue
		}
		if best == nil || ls.rank() < best.rank() || ls.rank() == best.rank() && ls.lastUsed.Before(best.lastUsed) {
			pick, best = id, ls
		}
	}
	if best == nil {
		return false
	}
	s.drop(pick)
	return true
}

// drop forgets session id; the caller holds s.mu.
func (s *sessions) drop(id string) {
	ls, ok := s.byID[id]
	if !ok {
		return
	}
	delete(s.byID, id)
	for _, k := range ls.keys {
		if s.count[k]--; s.count[k] <= 0 {
			delete(s.count, k)
		}
	}
}

// get returns live session id, or nil.
func (s *sessions) get(id string) *mcpserver.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ls := s.live(id); ls != nil {
		return ls.sess
	}
	return nil
}

// use returns live session id, handling a request until done is called
// (called: the request was one, not only notifications), or nil.
func (s *sessions) use(id string) (*mcpserver.Session, func(called bool)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ls := s.live(id)
	if ls == nil {
		return nil, nil
	}
	ls.busy++
	return ls.sess, s.doneFunc(ls)
}

// live finds session id, unexpired, and marks it used; the caller holds s.mu.
func (s *sessions) live(id string) *liveSession {
	ls, ok := s.byID[id]
	if !ok {
		return nil
	}
	now := s.now()
	if ls.expired(now, s.lim.idle) {
		s.drop(id)
		return nil
	}
	ls.lastUsed = now
	return ls
}

func (s *sessions) doneFunc(ls *liveSession) func(called bool) {
	var once sync.Once
	return func(called bool) {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			ls.busy--
			ls.called = ls.called || called
			ls.lastUsed = s.now() // a long call is a recent use
		})
	}
}

func (s *sessions) close(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.byID[id]
	s.drop(id)
	return ok
}

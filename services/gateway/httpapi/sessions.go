package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
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

// sessionKeys are the keys a session opened by r counts against. The
// address is the connection's: behind a proxy every client shares the
// proxy's, since a forwarded-for header is the client's to write. The
// token's cap keeps one token, leaked or looping, from taking the sessions
// of the others wherever it is used from.
//
// With tokens, the address's cap is counted per token there: a client
// that holds a token must not, by filling its address's cap, lock out
// another token's client on the same host or behind the same proxy.
func sessionKeys(r *http.Request) []sessionKey {
	addr := hostname(r.RemoteAddr)
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
// background. A cap that is reached makes room by dropping the oldest
// session that never got ready, and refuses only when ready sessions fill
// it: a flood of initialize requests displaces itself, not real clients.
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
}

func (ls *liveSession) expired(now time.Time, idle time.Duration) bool {
	return now.Sub(ls.lastUsed) > idle || now.Sub(ls.opened) > pendingTTL && !ls.sess.Ready()
}

func newSessions(lim sessionLimits, now func() time.Time) *sessions {
	return &sessions{lim: lim, now: now, byID: map[string]*liveSession{}, count: map[sessionKey]int{}}
}

// open starts a session counted against keys. It fails with RATE_LIMITED
// when ready sessions fill a key's cap, and UNAVAILABLE when they fill the
// server's.
func (s *sessions) open(keys []sessionKey) (string, *mcpserver.Session, error) {
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
		if capped && s.count[k] >= limit && !s.dropOldestPending(&k) {
			return "", nil, contract.Errorf(contract.CodeRateLimited,
				"Too Many Requests: %d MCP sessions are open for %s %s, the most one %s may hold; close unused ones with DELETE /mcp or let them expire",
				limit, k.kind, k.value, k.kind).With("limit", limit)
		}
	}
	if len(s.byID) >= s.lim.max && !s.dropOldestPending(nil) {
		return "", nil, contract.Errorf(contract.CodeUnavailable,
			"Service Unavailable: %d MCP sessions are open, the server's limit; close unused ones with DELETE /mcp or let them expire", s.lim.max).With("limit", s.lim.max)
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	sess := mcpserver.NewSession(contract.TransportMCPHTTP)
	s.byID[id] = &liveSession{sess: sess, keys: keys, opened: now, lastUsed: now}
	for _, k := range keys {
		s.count[k]++
	}
	return id, sess, nil
}

// dropOldestPending drops the oldest session that is not ready, of key
// when key is not nil, and reports whether there was one.
func (s *sessions) dropOldestPending(key *sessionKey) bool {
	var oldest string
	var at time.Time
	for id, ls := range s.byID {
		if ls.sess.Ready() || key != nil && !slices.Contains(ls.keys, *key) {
			continue
		}
		if oldest == "" || ls.opened.Before(at) {
			oldest, at = id, ls.opened
		}
	}
	if oldest == "" {
		return false
	}
	s.drop(oldest)
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

func (s *sessions) get(id string) *mcpserver.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
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
	return ls.sess
}

func (s *sessions) close(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.byID[id]
	s.drop(id)
	return ok
}

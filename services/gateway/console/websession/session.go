// Package websession signs people in to the gateway's web pages. A browser
// holds one cookie naming a session kept on the server; the session says
// who signed in (a bearer token's name and workspaces, as /rpc knows a
// caller) and carries the token every state-changing form must send back
// (csrf.go). Pages that need a person build on Manager: the console, and
// any consent page that must know who is deciding.
//
// The cookie is HttpOnly and SameSite=Strict, Secure when the request came
// over TLS or Options.Secure says a proxy terminates TLS, and then named
// with the __Host- prefix, which browsers refuse to let a subdomain or a
// plain-HTTP page set. Its value is 32 random bytes; the store keeps only
// their SHA-256, so a copy of the store signs nobody in.
package websession

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"sync"
	"time"
)

// Identity is who a session acts as.
type Identity struct {
	// Token is the name of the bearer token signed in with; empty on a
	// server with no tokens, where every caller is let in.
	Token string
	// Scopes are the token's (nil on a server with no tokens: every one).
	Scopes []string
	// Workspaces, when not empty, are the only ones the token may reach.
	Workspaces []string
}

// Session is one signed-in browser.
type Session struct {
	Identity
	// CSRF is the token forms of this session carry (FormField, Header).
	CSRF    string
	Created time.Time
	Expires time.Time
}

// Store keeps sessions by the hash of their cookie value.
type Store interface {
	Put(ctx context.Context, key string, s Session) error
	// Get returns the session, false when there is none (or it expired).
	Get(ctx context.Context, key string) (Session, bool, error)
	Delete(ctx context.Context, key string) error
}

// Options configure a Manager; the zero value works.
type Options struct {
	// TTL is how long a session lasts from sign-in (default 12 hours).
	TTL time.Duration
	// Secure marks the cookie Secure (and __Host-) even on plain HTTP
	// requests: for a server behind a proxy that terminates TLS.
	Secure bool
	// SameSite is the cookie's SameSite (default Strict).
	SameSite http.SameSite
	// Store keeps sessions (default: in this process).
	Store Store
	Now   func() time.Time
}

// Manager starts, finds and ends sessions.
type Manager struct {
	opts Options
}

// New returns a manager.
func New(opts Options) *Manager {
	opts.TTL = cmp.Or(opts.TTL, 12*time.Hour)
	opts.SameSite = cmp.Or(opts.SameSite, http.SameSiteStrictMode)
	if opts.Store == nil {
		opts.Store = NewMemoryStore()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Manager{opts: opts}
}

// Cookie names: the __Host- prefix needs Secure, so a plain-HTTP server
// (a loopback address) uses the bare name.
const (
	cookieSecure = "__Host-openhuman-session"
	cookiePlain  = "openhuman-session"
)

func (m *Manager) secure(r *http.Request) bool { return m.opts.Secure || r.TLS != nil }

func (m *Manager) cookieName(r *http.Request) string {
	if m.secure(r) {
		return cookieSecure
	}
	return cookiePlain
}

// Start begins a session for id and sets its cookie on w.
func (m *Manager) Start(w http.ResponseWriter, r *http.Request, id Identity) (*Session, error) {
	value, err := random(32)
	if err != nil {
		return nil, err
	}
	csrf, err := random(32)
	if err != nil {
		return nil, err
	}
	now := m.opts.Now()
	s := Session{Identity: id, CSRF: csrf, Created: now, Expires: now.Add(m.opts.TTL)}
	if err := m.opts.Store.Put(r.Context(), key(value), s); err != nil {
		return nil, err
	}
	http.SetCookie(w, &http.Cookie{Name: m.cookieName(r), Value: value, Path: "/", Expires: s.Expires, MaxAge: int(m.opts.TTL.Seconds()),
		HttpOnly: true, Secure: m.secure(r), SameSite: m.opts.SameSite})
	return &s, nil
}

// Find returns the request's session, nil when it has none or it expired.
func (m *Manager) Find(r *http.Request) (*Session, error) {
	c, err := r.Cookie(m.cookieName(r))
	if err != nil || c.Value == "" {
		return nil, nil
	}
	s, ok, err := m.opts.Store.Get(r.Context(), key(c.Value))
	if err != nil || !ok {
		return nil, err
	}
	if !m.opts.Now().Before(s.Expires) {
		return nil, m.opts.Store.Delete(r.Context(), key(c.Value))
	}
	return &s, nil
}

// End revokes the request's session and clears its cookie.
func (m *Manager) End(w http.ResponseWriter, r *http.Request) error {
	var err error
	if c, cerr := r.Cookie(m.cookieName(r)); cerr == nil && c.Value != "" {
		err = m.opts.Store.Delete(r.Context(), key(c.Value))
	}
	http.SetCookie(w, &http.Cookie{Name: m.cookieName(r), Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: m.secure(r), SameSite: m.opts.SameSite})
	return err
}

type sessionKey struct{}

// NewContextWithSession is ctx carrying s.
func NewContextWithSession(ctx context.Context, s *Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// FromContext is the session Middleware found, nil when none.
func FromContext(ctx context.Context) *Session {
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}

// key is what the store knows a cookie value by.
func key(value string) string {
	sum := sha256.Sum256([]byte(value))
	return hex.EncodeToString(sum[:])
}

func random(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// MemoryStore keeps sessions in this process: a restart signs everyone
// out, and each gateway replica has its own.
type MemoryStore struct {
	mu       sync.Mutex
	sessions map[string]Session
	now      func() time.Time
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{sessions: map[string]Session{}, now: time.Now}
}

// Put keeps s under key, dropping the sessions that have expired.
func (ms *MemoryStore) Put(_ context.Context, key string, s Session) error {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	now := ms.now()
	for k, old := range ms.sessions {
		if !now.Before(old.Expires) {
			delete(ms.sessions, k)
		}
	}
	ms.sessions[key] = s
	return nil
}

// Get returns the session under key.
func (ms *MemoryStore) Get(_ context.Context, key string) (Session, bool, error) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	s, ok := ms.sessions[key]
	return s, ok, nil
}

// Delete drops the session under key.
func (ms *MemoryStore) Delete(_ context.Context, key string) error {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	delete(ms.sessions, key)
	return nil
}

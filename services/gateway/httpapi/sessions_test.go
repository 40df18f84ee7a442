package httpapi

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/mcpserver"
)

const initMsg = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// clock is a settable time for sessions, read from handler goroutines.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func TestSessionsExpire(t *testing.T) {
	srv := mcpserver.New(gatewaytest.Start(t, nil, gateway.Options{}), nil)
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := newSessions(sessionLimits{idle: 30 * time.Minute, max: 10, perKey: map[string]int{keyAddress: 10}}, clk.now)
	key := []sessionKey{{keyAddress, "192.0.2.1"}}
	open := func(ready bool) string {
		id, sess, done, err := s.open(key)
		if err != nil {
			t.Fatal(err)
		}
		srv.Handle(context.Background(), sess, []byte(initMsg))
		if ready {
			srv.Handle(context.Background(), sess, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		}
		done(false)
		return id
	}
	a, b, pending := open(true), open(true), open(false)
	if a == b || len(a) != 32 {
		t.Fatalf("ids %q %q", a, b)
	}
	clk.advance(pendingTTL - time.Second)
	if s.get(pending) == nil {
		t.Fatal("a session short of ready expired before its minute")
	}
	clk.advance(2 * time.Second) // used a second ago, but never got ready
	if s.get(pending) != nil {
		t.Error("a session that never got past initialize outlived its minute")
	}
	clk.advance(20 * time.Minute)
	if s.get(a) == nil {
		t.Fatal("ready session a expired early")
	}
	clk.advance(20 * time.Minute) // b idle 40 min, a idle 20 min
	if s.get(b) != nil {
		t.Error("idle session b did not expire")
	}
	if s.get(a) == nil {
		t.Error("session a, used 20 minutes ago, expired")
	}
	if !s.close(a) || s.close(a) || s.get(a) != nil {
		t.Error("close")
	}
	if len(s.count) != 0 {
		t.Errorf("counts left behind: %v", s.count)
	}
}

// TestSessionsGiveWay: a full cap closes the session that gives way
// first, among those no request is being handled on: one that never got
// ready, then one that never made a call, then the one unused the longest.
// Only when every session under the cap is handling a request is anyone
// refused.
func TestSessionsGiveWay(t *testing.T) {
	srv := mcpserver.New(gatewaytest.Start(t, nil, gateway.Options{}), nil)
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := newSessions(sessionLimits{idle: 30 * time.Minute, max: 5, perKey: map[string]int{keyAddress: 3}}, clk.now)
	a, b := []sessionKey{{keyAddress, "192.0.2.1"}}, []sessionKey{{keyAddress, "192.0.2.2"}}
	// open starts a session; ready sends notifications/initialized, call a
	// request after that.
	open := func(key []sessionKey, ready, call bool) string {
		t.Helper()
		clk.advance(time.Second)
		id, sess, done, err := s.open(key)
		if err != nil {
			t.Fatal(err)
		}
		srv.Handle(context.Background(), sess, []byte(initMsg))
		done(false)
		if ready {
			s.use1(t, srv, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		}
		if call {
			s.use1(t, srv, id, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		}
		return id
	}
	live := func(ids ...string) string {
		var out []string
		for _, id := range ids {
			_, ok := s.byID[id]
			out = append(out, map[bool]string{true: "live", false: "gone"}[ok])
		}
		return strings.Join(out, " ")
	}

	a1, a2 := open(a, true, true), open(a, true, true)
	a3 := open(a, true, false) // the newest, but it never made a call
	a4 := open(a, true, true)
	if got := live(a1, a2, a3, a4); got != "live live gone live" {
		t.Errorf("a's fourth session: %s, want the one that never made a call to give way", got)
	}
	clk.advance(time.Second)
	s.use1(t, srv, a1, `{"jsonrpc":"2.0","id":3,"method":"ping"}`) // a2 is now unused the longest
	a5 := open(a, true, true)
	if got := live(a1, a2, a4, a5); got != "live gone live live" {
		t.Errorf("a's fifth session: %s, want the one unused the longest to give way", got)
	}

	// The server's cap: b's pending session gives way before any of a's.
	b1 := open(b, false, false)
	b2 := open(b, true, true)
	if len(s.byID) != 5 {
		t.Fatalf("%d sessions, want the server's 5", len(s.byID))
	}
	b3 := open(b, true, true)
	if got := live(b1, b2, b3, a1, a4, a5); got != "gone live live live live live" {
		t.Errorf("at the server's cap: %s, want the pending session to give way", got)
	}

	// Sessions handling a request are never closed.
	var release []func(bool)
	for _, id := range []string{a1, a4, a5} {
		_, done := s.use(id)
		release = append(release, done)
	}
	if _, _, _, err := s.open(a); contract.ErrorCode(err) != contract.CodeRateLimited ||
		!strings.Contains(err.Error(), "all 3 MCP sessions allowed for address 192.0.2.1 are handling a request") {
		t.Errorf("a's cap, every session busy: %v", err)
	}
	for _, id := range []string{b2, b3} {
		_, done := s.use(id)
		release = append(release, done)
	}
	if _, _, _, err := s.open([]sessionKey{{keyAddress, "192.0.2.3"}}); contract.ErrorCode(err) != contract.CodeUnavailable ||
		!strings.Contains(err.Error(), "the server's 5 MCP sessions are all handling a request") {
		t.Errorf("the server's cap, every session busy: %v", err)
	}
	release[0](true) // a1 answered: it may give way again
	if _, _, done, err := s.open(a); err != nil {
		t.Errorf("once a request was answered: %v", err)
	} else {
		done(false)
	}
	if got := live(a1, a4, a5); got != "gone live live" {
		t.Errorf("%s, want a1, the only idle one, closed", got)
	}
}

// use1 sends msg on session id as one request.
func (s *sessions) use1(t *testing.T, srv *mcpserver.Server, id, msg string) {
	t.Helper()
	sess, done := s.use(id)
	if sess == nil {
		t.Fatalf("session %s is gone", id)
	}
	done(srv.Handle(context.Background(), sess, []byte(msg)) != nil)
}

// addrClient makes its connections from ip, a loopback address other than
// 127.0.0.1, so one listener sees several client addresses.
func addrClient(t *testing.T, ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr := &http.Transport{DialContext: d.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

type mcpClient struct {
	t     *testing.T
	c     *http.Client
	base  string
	token string // sent as a bearer token when set
}

func (m mcpClient) post(sid, body string) (*http.Response, string) {
	m.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, m.base+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set(headerSession, sid)
	}
	if m.token != "" {
		req.Header.Set("Authorization", "Bearer "+m.token)
	}
	resp, err := m.c.Do(req)
	if err != nil {
		m.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// open sends initialize and, when ready, notifications/initialized; it
// returns the status and the session id.
func (m mcpClient) open(ready bool) (int, string, string) {
	m.t.Helper()
	resp, body := m.post("", initMsg)
	sid := resp.Header.Get(headerSession)
	if ready && resp.StatusCode == 200 {
		if r, b := m.post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.StatusCode != 202 {
			m.t.Fatalf("notifications/initialized: %d %s", r.StatusCode, b)
		}
	}
	return resp.StatusCode, sid, body
}

func (m mcpClient) alive(sid string) bool {
	m.t.Helper()
	resp, _ := m.post(sid, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	return resp.StatusCode == 200
}

// delete ends a session, reporting whether it was live.
func (m mcpClient) delete(sid string) bool {
	req, _ := http.NewRequest(http.MethodDelete, m.base+"/mcp", nil)
	req.Header.Set(headerSession, sid)
	resp, err := m.c.Do(req)
	if err != nil {
		m.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusNoContent
}

// TestSessionFlood: on a server without tokens, local processes open
// sessions from 157 loopback addresses, far past the server's cap, first
// sessions that never make a call, then sessions that each make one. No
// initialize is refused, the sessions never outnumber the cap, and a client
// that uses its session keeps it throughout.
func TestSessionFlood(t *testing.T) {
	gw := gatewaytest.Start(t, nil, gateway.Options{})
	ts := httptest.NewServer(nil)
	t.Cleanup(ts.Close)
	api := New(gw, mcpserver.New(gw, nil), Options{ListenAddr: ts.Listener.Addr().String(), MaxSessions: 100})
	ts.Config.Handler = api
	client := func(ip string) mcpClient { return mcpClient{t, addrClient(t, ip), ts.URL, ""} }
	me := client("127.0.0.1")
	status, mine, body := me.open(true)
	if status != 200 || !me.alive(mine) {
		t.Fatalf("%d %s", status, body)
	}
	flood := make([]mcpClient, 157)
	for i := range flood {
		flood[i] = client(fmt.Sprintf("127.0.%d.%d", 1+i/200, 2+i%200))
	}
	refused := 0
	for round, calls := range []bool{false, false, true, true} {
		for i, c := range flood {
			status, sid, body := c.open(true)
			if status != 200 {
				if refused++; refused <= 3 {
					t.Errorf("round %d, address %d: initialize answered %d %s", round, i, status, body)
				}
				continue
			}
			if calls && !c.alive(sid) {
				t.Errorf("round %d, address %d: a session just opened is gone", round, i)
			}
			if i%20 == 0 && !me.alive(mine) {
				t.Fatalf("round %d: the session in use was closed by the flood", round)
			}
		}
		api.sessions.mu.Lock()
		n := len(api.sessions.byID)
		api.sessions.mu.Unlock()
		if n > 100 {
			t.Errorf("round %d: %d sessions live, past the cap of 100", round, n)
		}
	}
	if refused > 0 {
		t.Errorf("%d initialize requests were refused", refused)
	}
	if !me.alive(mine) {
		t.Error("the session in use did not survive the flood")
	}
	if status, _, body := client("127.0.0.1").open(true); status != 200 {
		t.Errorf("after the flood, a new client: %d %s", status, body)
	}
}

// TestLoopbackIsOneClient: every loopback address counts against one
// address cap, since any local process may connect from any of them;
// past it, the oldest idle local session gives way.
func TestLoopbackIsOneClient(t *testing.T) {
	gw := gatewaytest.Start(t, nil, gateway.Options{})
	ts := httptest.NewServer(nil)
	t.Cleanup(ts.Close)
	api := New(gw, mcpserver.New(gw, nil), Options{ListenAddr: ts.Listener.Addr().String(), MaxSessionsPerAddress: 3})
	ts.Config.Handler = api
	var ids []string
	var clients []mcpClient
	for _, ip := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"} {
		c := mcpClient{t, addrClient(t, ip), ts.URL, ""}
		status, sid, body := c.open(true)
		if status != 200 || !c.alive(sid) {
			t.Fatalf("%s: %d %s", ip, status, body)
		}
		ids, clients = append(ids, sid), append(clients, c)
	}
	if clients[0].alive(ids[0]) || !clients[3].alive(ids[3]) {
		t.Error("a fourth loopback address did not count against the cap of the first three")
	}
	if n := api.sessions.count[sessionKey{keyAddress, loopbackClient}]; n != 3 {
		t.Errorf("%d sessions counted for loopback, want 3: %v", n, api.sessions.count)
	}
}

// TestSessionsPerToken: a token holds at most its cap of sessions however
// many addresses it is used from, its own oldest giving way, and another
// token's sessions are untouched.
func TestSessionsPerToken(t *testing.T) {
	gw := gatewaytest.Start(t, nil, gateway.Options{})
	ts := httptest.NewServer(nil)
	t.Cleanup(ts.Close)
	tokens := []config.Token{
		{Name: "leaked", SHA256: config.HashToken("oh_leaked"), Scopes: []string{"read"}},
		{Name: "mine", SHA256: config.HashToken("oh_mine"), Scopes: []string{"read"}},
	}
	api := New(gw, mcpserver.New(gw, nil), Options{ListenAddr: ts.Listener.Addr().String(), Tokens: tokens,
		MaxSessionsPerAddress: 10, MaxSessionsPerToken: 2})
	ts.Config.Handler = api
	mine := mcpClient{t, addrClient(t, "127.0.0.4"), ts.URL, "oh_mine"}
	status, mineID, body := mine.open(true)
	if status != 200 || !mine.alive(mineID) {
		t.Fatalf("mine: %d %s", status, body)
	}
	leaked := func(ip string) mcpClient { return mcpClient{t, addrClient(t, ip), ts.URL, "oh_leaked"} }
	var ids []string
	for _, ip := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.5"} {
		c := leaked(ip)
		status, sid, body := c.open(true)
		if status != 200 || !c.alive(sid) {
			t.Fatalf("leaked from %s: %d %s", ip, status, body)
		}
		ids = append(ids, sid)
	}
	if n := api.sessions.count[sessionKey{keyToken, "leaked"}]; n != 2 {
		t.Errorf("token leaked holds %d sessions, want its cap of 2", n)
	}
	if leaked("127.0.0.2").alive(ids[0]) {
		t.Error("leaked's oldest session did not give way to its third")
	}
	if !mine.alive(mineID) {
		t.Error("another token's session gave way")
	}
}

// TestTokensShareNoAddressCap: on one address, each token has the
// address's cap to itself, so one token's sessions cannot make another
// token's client there give way.
func TestTokensShareNoAddressCap(t *testing.T) {
	gw := gatewaytest.Start(t, nil, gateway.Options{})
	ts := httptest.NewServer(nil)
	t.Cleanup(ts.Close)
	tokens := []config.Token{
		{Name: "greedy", SHA256: config.HashToken("oh_greedy"), Scopes: []string{"read"}},
		{Name: "mine", SHA256: config.HashToken("oh_mine"), Scopes: []string{"read"}},
	}
	api := New(gw, mcpserver.New(gw, nil), Options{ListenAddr: ts.Listener.Addr().String(), Tokens: tokens,
		MaxSessionsPerAddress: 2, MaxSessionsPerToken: 10})
	ts.Config.Handler = api
	mine := mcpClient{t, addrClient(t, "127.0.0.2"), ts.URL, "oh_mine"}
	status, mineID, body := mine.open(true)
	if status != 200 || !mine.alive(mineID) {
		t.Fatalf("mine: %d %s", status, body)
	}
	greedy := mcpClient{t, addrClient(t, "127.0.0.2"), ts.URL, "oh_greedy"}
	for range 5 {
		if status, sid, body := greedy.open(true); status != 200 || !greedy.alive(sid) {
			t.Fatalf("greedy: %d %s", status, body)
		}
	}
	if n := api.sessions.count[sessionKey{keyAddress, loopbackClient + " with token greedy"}]; n != 2 {
		t.Errorf("greedy holds %d sessions on its address, want the cap of 2", n)
	}
	if !mine.alive(mineID) {
		t.Error("another token's session on the same address gave way")
	}
}

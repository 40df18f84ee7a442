package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/config"
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
		id, sess, err := s.open(key)
		if err != nil {
			t.Fatal(err)
		}
		srv.Handle(context.Background(), sess, []byte(initMsg))
		if ready {
			srv.Handle(context.Background(), sess, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		}
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

// TestSessionFlood: one address cannot take the sessions others need, a
// flood of sessions that never get ready displaces only itself, and the
// server's cap answers 503 only when ready sessions fill it.
func TestSessionFlood(t *testing.T) {
	gw := gatewaytest.Start(t, nil, gateway.Options{})
	ts := httptest.NewServer(nil)
	t.Cleanup(ts.Close)
	api := New(gw, mcpserver.New(gw, nil), Options{ListenAddr: ts.Listener.Addr().String(), MaxSessions: 6, MaxSessionsPerAddress: 3})
	clk := &clock{t: time.Now()}
	api.sessions.now = clk.now
	ts.Config.Handler = api
	client := func(ip string) mcpClient { return mcpClient{t, addrClient(t, ip), ts.URL, ""} }
	a, b, c, d := client("127.0.0.2"), client("127.0.0.3"), client("127.0.0.4"), client("127.0.0.5")

	var aIDs []string
	for range 3 {
		status, sid, body := a.open(true)
		if status != 200 {
			t.Fatalf("a: %d %s", status, body)
		}
		aIDs = append(aIDs, sid)
	}
	if status, sid, body := a.open(true); status != http.StatusTooManyRequests || sid != "" ||
		!strings.Contains(body, `"RATE_LIMITED"`) || !strings.Contains(body, "3 MCP sessions are open for address 127.0.0.2") {
		t.Errorf("a's fourth session: %d %q %s", status, sid, body)
	}
	status, bID, body := b.open(true)
	if status != 200 {
		t.Fatalf("another address was locked out: %d %s", status, body)
	}

	// c opens ten sessions and never uses them: each one opens, the oldest
	// giving way, and nobody else's is touched.
	var cIDs []string
	for i := range 10 {
		status, sid, body := c.open(false)
		if status != 200 {
			t.Fatalf("c's session %d: %d %s", i, status, body)
		}
		cIDs = append(cIDs, sid)
	}
	// (Pinging one would make it ready: a request after initialize.)
	if first, last := c.delete(cIDs[0]), c.delete(cIDs[9]); first || !last {
		t.Errorf("c's first session was live %v, its last %v; want the oldest displaced", first, last)
	}
	for _, sid := range append(aIDs, bID) {
		if !a.alive(sid) {
			t.Errorf("ready session %s was displaced by a flood", sid)
		}
	}

	// Ready sessions fill the server (a: 3, b: 3); the next is 503.
	for range 2 {
		if status, _, body := b.open(true); status != 200 {
			t.Fatalf("b: %d %s", status, body)
		}
	}
	if status, _, body := d.open(true); status != http.StatusServiceUnavailable || !strings.Contains(body, `"UNAVAILABLE"`) || !strings.Contains(body, "6 MCP sessions are open, the server's limit") {
		t.Errorf("with ready sessions at the server's limit: %d %s", status, body)
	}

	// Room made, d opens a session and leaves it short of ready: a minute
	// later it is gone, while ready sessions stay.
	if !a.delete(aIDs[0]) {
		t.Fatal("DELETE of a live session")
	}
	status, dID, body := d.open(false)
	if status != 200 {
		t.Fatalf("d after a DELETE: %d %s", status, body)
	}
	clk.advance(pendingTTL + time.Second)
	if d.alive(dID) {
		t.Error("a session that never got past initialize outlived its minute")
	}
	if !a.alive(aIDs[1]) || !b.alive(bID) {
		t.Error("ready sessions expired with it")
	}
	var m map[string]any
	if status, _, body := a.open(true); status != 200 || json.Unmarshal([]byte(body), &m) != nil {
		t.Errorf("a, below its cap again: %d %s", status, body)
	}
}

// TestSessionsPerToken: a token holds at most its cap of sessions however
// many addresses it is used from, and another token still gets its own.
func TestSessionsPerToken(t *testing.T) {
	gw := gatewaytest.Start(t, nil, gateway.Options{})
	ts := httptest.NewServer(nil)
	t.Cleanup(ts.Close)
	tokens := []config.Token{
		{Name: "leaked", SHA256: config.HashToken("oh_leaked"), Scopes: []string{"read"}},
		{Name: "mine", SHA256: config.HashToken("oh_mine"), Scopes: []string{"read"}},
	}
	ts.Config.Handler = New(gw, mcpserver.New(gw, nil), Options{ListenAddr: ts.Listener.Addr().String(), Tokens: tokens,
		MaxSessionsPerAddress: 10, MaxSessionsPerToken: 2})
	leaked := func(ip string) mcpClient { return mcpClient{t, addrClient(t, ip), ts.URL, "oh_leaked"} }
	for _, ip := range []string{"127.0.0.2", "127.0.0.3"} {
		if status, _, body := leaked(ip).open(true); status != 200 {
			t.Fatalf("leaked from %s: %d %s", ip, status, body)
		}
	}
	if status, _, body := leaked("127.0.0.4").open(true); status != http.StatusTooManyRequests || !strings.Contains(body, "2 MCP sessions are open for token leaked") {
		t.Errorf("a third session of one token from a third address: %d %s", status, body)
	}
	if status, _, body := (mcpClient{t, addrClient(t, "127.0.0.4"), ts.URL, "oh_mine"}).open(true); status != 200 {
		t.Errorf("another token was locked out: %d %s", status, body)
	}
}

// TestTokensShareNoAddressCap: on one address, each token has the
// address's cap to itself, so one token's sessions cannot lock out
// another token's client there.
func TestTokensShareNoAddressCap(t *testing.T) {
	gw := gatewaytest.Start(t, nil, gateway.Options{})
	ts := httptest.NewServer(nil)
	t.Cleanup(ts.Close)
	tokens := []config.Token{
		{Name: "greedy", SHA256: config.HashToken("oh_greedy"), Scopes: []string{"read"}},
		{Name: "mine", SHA256: config.HashToken("oh_mine"), Scopes: []string{"read"}},
	}
	ts.Config.Handler = New(gw, mcpserver.New(gw, nil), Options{ListenAddr: ts.Listener.Addr().String(), Tokens: tokens,
		MaxSessionsPerAddress: 2, MaxSessionsPerToken: 10})
	greedy := mcpClient{t, addrClient(t, "127.0.0.2"), ts.URL, "oh_greedy"}
	for range 2 {
		if status, _, body := greedy.open(true); status != 200 {
			t.Fatalf("greedy: %d %s", status, body)
		}
	}
	if status, _, body := greedy.open(true); status != http.StatusTooManyRequests || !strings.Contains(body, "for address 127.0.0.2 with token greedy") {
		t.Errorf("greedy's third session on one address: %d %s", status, body)
	}
	if status, _, body := (mcpClient{t, addrClient(t, "127.0.0.2"), ts.URL, "oh_mine"}).open(true); status != 200 {
		t.Errorf("another token on the same address was locked out: %d %s", status, body)
	}
}

package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// TestEdgeLimits runs `serve` behind a proxy it trusts (127.0.0.1, which
// forwards for its clients in X-Forwarded-For) with a body budget of two
// 4 MiB bodies, and checks the edge's limits as the clients of a real
// deployment meet them.
func TestEdgeLimits(t *testing.T) {
	const token = "oh_edge-token-for-the-tests"
	addr := freePort(t)
	base := startServeOn(t, t.TempDir(), addr, "OPENHUMAN_API_TOKEN="+token, "OPENHUMAN_HTTP_TRUSTED_PROXIES=127.0.0.1",
		"OPENHUMAN_HTTP_MAX_BODY_BYTES_IN_FLIGHT="+fmt.Sprint(8<<20), "OPENHUMAN_HTTP_PUBLIC_URL=http://"+addr)

	t.Run("a ; in a redirect URI's host reaches no header", func(t *testing.T) { redirectHostInHeaders(t, base, token) })
	t.Run("bodies past the budget are refused, not held", func(t *testing.T) { bodiesPastTheBudget(t, base, addr, token) })

	// from is a client reaching serve from local address ip, through the
	// proxy (127.0.0.1) as the client forwarded, or directly.
	from := func(ip, forwarded string) func(req *http.Request) int {
		dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		c := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext, DisableKeepAlives: true},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		return func(req *http.Request) int {
			req.Header.Set("X-Forwarded-For", forwarded)
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
	}
	signIn := func(tok string) *http.Request {
		req, _ := http.NewRequest(http.MethodPost, base+"/console/signin", strings.NewReader(url.Values{"token": {tok}, "next": {"/console/memory"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return req
	}
	rpc := func(tok string) *http.Request {
		req, _ := http.NewRequest(http.MethodPost, base+"/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_fetch","params":{"query":"x"}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		return req
	}
	for _, tc := range []struct {
		name     string
		try      func(tok string) *http.Request
		accepted int
	}{{"console sign-in", signIn, http.StatusSeeOther}, {"bearer token at /rpc", rpc, http.StatusOK}} {
		t.Run(tc.name+": a forwarded client's wrong tokens hold back that client only", func(t *testing.T) {
			guesser, holder := from("127.0.0.1", "198.51.100."+fmt.Sprint(len(tc.name))), from("127.0.0.1", "203.0.113."+fmt.Sprint(len(tc.name)))
			for i := range 5 {
				// Each a new guess: a wrong token counts once, wherever from.
				if got := guesser(tc.try(fmt.Sprintf("oh_guess-%d-%d", len(tc.name), i))); got != http.StatusUnauthorized {
					t.Fatalf("wrong token %d: %d", i+1, got)
				}
			}
			if got := holder(tc.try(token)); got != tc.accepted {
				t.Errorf("the correct token from another client: %d, want %d", got, tc.accepted)
			}
			if got := guesser(tc.try(token)); got != http.StatusTooManyRequests {
				t.Errorf("the guesser after five wrong tokens: %d, want 429", got)
			}
		})
	}
	// 127.0.0.2 and 127.0.0.3 are no proxy of serve's: what they say they
	// forward for is theirs to write, and every loopback address is one
	// client. (Last: it holds back the loopback client.)
	t.Run("from an address not trusted, X-Forwarded-For changes nothing", func(t *testing.T) {
		for i := range 5 {
			if got := from("127.0.0.2", "198.51.100.200")(signIn(fmt.Sprintf("oh_direct-guess-%d", i))); got != http.StatusUnauthorized {
				t.Fatalf("wrong token %d: %d", i+1, got)
			}
		}
		if got := from("127.0.0.3", "203.0.113.200")(signIn(token)); got != http.StatusTooManyRequests {
			t.Errorf("another loopback address naming another client: %d, want 429", got)
		}
	})
}

// redirectHostInHeaders registers a client whose redirect URI's host holds
// ";", then follows its authorization to the consent page as a signed-in
// person: no response on the way may carry the host in a header.
func redirectHostInHeaders(t *testing.T, base, token string) {
	const redirect = "https://app.example;script-src/cb"
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	var seen []string
	check := func(resp *http.Response) {
		for name, vs := range resp.Header {
			for _, v := range vs {
				if strings.Contains(v, "app.example;") {
					t.Errorf("%s %s: header %s holds the redirect URI's host: %s", resp.Request.Method, resp.Request.URL.Path, name, v)
				}
			}
		}
		seen = append(seen, resp.Request.URL.Path)
	}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error { check(req.Response); return nil }
	resp, err := c.Post(base+"/oauth/register", "application/json", strings.NewReader(`{"client_name":"Evil","redirect_uris":["`+redirect+`"],"token_endpoint_auth_method":"none"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	check(resp)
	if resp.StatusCode == http.StatusBadRequest && strings.Contains(string(body), "invalid_redirect_uri") {
		return // refused where it came in
	}
	client := regexp.MustCompile(`"client_id":"([^"]+)"`).FindStringSubmatch(string(body))
	if len(client) < 2 {
		t.Fatalf("registration: %d %s", resp.StatusCode, body)
	}
	if resp, err = c.PostForm(base+"/console/signin", url.Values{"token": {token}, "next": {"/console/memory"}}); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	q := url.Values{"response_type": {"code"}, "client_id": {client[1]}, "redirect_uri": {redirect}, "code_challenge_method": {"S256"},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier())}, "scope": {"read"}}
	if resp, err = c.Get(base + "/oauth/authorize?" + q.Encode()); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	check(resp)
	t.Logf("registered, then went through %v", seen)
}

// bodiesPastTheBudget sends six /rpc requests of 4 MiB declared, holding
// back the end of each body: two fit in the budget of 8 MiB and are read,
// the other four are answered 503 with Retry-After at once, while the two
// are still held. serve counts the four.
func bodiesPastTheBudget(t *testing.T, base, addr, token string) {
	const size = 4 << 20
	call := `{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_fetch","params":{"query":"budget"}}`
	answers := make(chan *http.Response, 6) // nil: the connection failed
	var conns []net.Conn
	for range 6 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		// A deadline only so that a server holding all six fails the test
		// instead of hanging it.
		_ = c.SetDeadline(time.Now().Add(20 * time.Second))
		fmt.Fprintf(c, "POST /rpc HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, token, size, call)
		go func() {
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
			}
			answers <- resp
		}()
		conns = append(conns, c)
	}
	// The two read are not answered until their bodies end: the first
	// four answers are the refusals.
	for i := range 4 {
		resp := <-answers
		if resp == nil || resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("answer %d while six bodies of 4 MiB are held under a budget of 8 MiB: %v, want 503 with Retry-After", i+1, resp)
		}
	}
	metrics, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := io.ReadAll(metrics.Body)
	metrics.Body.Close()
	if !strings.Contains(string(m), "openhuman_http_body_budget_refusals_total 4") {
		t.Errorf("/metrics does not count the four refusals: %q", regexp.MustCompile(`(?m)^openhuman_http_body.*$`).FindAllString(string(m), -1))
	}
	for _, c := range conns {
		_, _ = io.WriteString(c, strings.Repeat(" ", size-len(call)))
	}
	for range 2 {
		if resp := <-answers; resp == nil || resp.StatusCode != http.StatusOK {
			t.Errorf("a body within the budget, once sent: %v", resp)
		}
	}
}

package httpapi_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/httpapi"
	"github.com/openhuman-go/openhuman-go/services/gateway/mcpserver"
)

// serveHTTPServer runs gw with the http.Server serve runs, on a real
// listener, and returns its address.
func serveHTTPServer(t *testing.T, gw *gateway.Gateway, opts httpapi.Options) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	opts.ListenAddr = ln.Addr().String()
	srv := httpapi.New(gw, mcpserver.New(gw, nil), opts).HTTPServer()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// dribble writes head, then one byte of filler every 20 ms until the
// connection fails or the test ends, as a slow-loris client does.
func dribble(t *testing.T, addr, head, filler string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	io.WriteString(conn, head)
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if _, err := io.WriteString(conn, filler[i%len(filler):i%len(filler)+1]); err != nil {
				return
			}
		}
	}()
	return conn
}

// TestSlowClientsAreCut: a body or headers that dribble in are cut off
// once their time is up, not kept for as long as the client likes.
func TestSlowClientsAreCut(t *testing.T) {
	const headerTimeout, bodyTimeout = 400 * time.Millisecond, 600 * time.Millisecond
	addr := serveHTTPServer(t, gatewaytest.Start(t, nil, gateway.Options{}), httpapi.Options{HeaderTimeout: headerTimeout, BodyTimeout: bodyTimeout})
	// Generous: the bound is the timeout, the rest is a slow machine.
	const slack = 20 * time.Second
	head := "POST /rpc HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n"
	for _, tc := range []struct {
		name, head, filler string
		bound              time.Duration
		want408            bool
	}{
		{"body with a length", head + "Content-Length: 100000\r\n\r\n", " ", bodyTimeout, true},
		{"chunked body", head + "Transfer-Encoding: chunked\r\n\r\n", "1\r\n \r\n", bodyTimeout, true},
		{"body of a refused request", "POST /rpc HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n", "1\r\n \r\n", bodyTimeout, false},
		{"headers", "POST /rpc HTTP/1.1\r\nHost: " + addr + "\r\n", "X-Slow: yes\r\n", headerTimeout, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			conn := dribble(t, addr, tc.head, tc.filler)
			conn.SetReadDeadline(start.Add(tc.bound + slack))
			r := bufio.NewReader(conn)
			resp, err := http.ReadResponse(r, nil)
			if tc.want408 {
				if err != nil {
					t.Fatalf("no response: %v", err)
				}
				body, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), "did not arrive in time") {
					t.Errorf("%d %s, want 408", resp.StatusCode, body)
				}
			} else if err == nil {
				io.Copy(io.Discard, resp.Body) // a refusal may be answered first; the connection must end all the same
			}
			// Then the connection is closed.
			if _, err := r.ReadByte(); err == nil {
				t.Error("the connection stayed open")
			} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatalf("not cut within %v", tc.bound+slack)
			}
			if took := time.Since(start); took < tc.bound {
				t.Errorf("cut after %v, before its %v", took, tc.bound)
			}
		})
	}
}

// TestSlowCallOutlivesBodyDeadline: the body's deadline ends when the body
// is in; a call that takes longer than it is answered, and the connection
// serves the next request.
func TestSlowCallOutlivesBodyDeadline(t *testing.T) {
	const bodyTimeout = 200 * time.Millisecond
	searxng := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(3 * bodyTimeout) // at least this long, however busy the machine
		fmt.Fprintf(w, `{"query":%q,"results":[{"url":"https://example.com/slow","title":"Slow answer","content":"x","engine":"duckduckgo","score":1}],"unresponsive_engines":[]}`, r.URL.Query().Get("q"))
	}))
	t.Cleanup(searxng.Close)
	gw := gatewaytest.Start(t, map[string]string{"OPENHUMAN_SEARXNG_ENABLED": "true", "OPENHUMAN_SEARXNG_BASE_URL": searxng.URL}, gateway.Options{})
	addr := serveHTTPServer(t, gw, httpapi.Options{BodyTimeout: bodyTimeout})
	client := &http.Client{Transport: &http.Transport{}}
	var conns int
	for i, q := range []string{"first", "second"} {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/rpc",
			strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"openhuman.tools_searxng_search","params":{"query":%q}}`, i, q)))
		req.Header.Set("Content-Type", "application/json")
		req = req.WithContext(httptraceConns(req.Context(), &conns))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), "Slow answer") {
			t.Fatalf("%s: %d %.300s", q, resp.StatusCode, body)
		}
	}
	if conns != 1 {
		t.Errorf("%d connections for two requests: the first was closed", conns)
	}
}

// httptraceConns counts the new connections a request's client dials.
func httptraceConns(ctx context.Context, n *int) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if !info.Reused {
			*n++
		}
	}})
}

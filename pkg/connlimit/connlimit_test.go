package connlimit

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// server runs Serve with ceiling on a loopback port; /slow answers once
// release is closed. peak reports the most connections the process held
// open at once, counted where they are accepted and closed.
func server(t *testing.T, ceiling int, release chan struct{}) (url string, peak func() int) {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &counting{Listener: inner}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, _ *http.Request) { <-release; io.WriteString(w, "done") })
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: time.Minute, IdleTimeout: time.Hour}
	go func() { _ = Serve(srv, ln, ceiling) }()
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String(), ln.peak
}

// counting counts the connections a listener has open.
type counting struct {
	net.Listener
	mu         sync.Mutex
	open, most int
}

func (l *counting) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.open++
	l.most = max(l.most, l.open)
	l.mu.Unlock()
	return &countedConn{Conn: c, l: l}, nil
}

func (l *counting) peak() int { l.mu.Lock(); defer l.mu.Unlock(); return l.most }

type countedConn struct {
	net.Conn
	l    *counting
	once sync.Once
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.mu.Lock(); c.l.open--; c.l.mu.Unlock() })
	return err
}

// flood opens n connections; with request, each makes one request and
// is then left open and idle, else each sends nothing. They are closed
// when the test ends.
func flood(t *testing.T, addr string, n int, request bool) {
	t.Helper()
	var wg sync.WaitGroup
	for range n {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if request {
			wg.Go(func() {
				io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
				c.SetReadDeadline(time.Now().Add(10 * time.Second))
				http.ReadResponse(bufio.NewReader(c), nil) // a connection shed meanwhile just fails
			})
		}
	}
	wg.Wait()
}

// TestFloodLeavesRoom: past the ceiling, connections that sit idle or
// never send a request give way, so a newcomer is served at once and the
// process never holds more connections than the ceiling; a connection
// with a request in flight is never closed.
func TestFloodLeavesRoom(t *testing.T) {
	release := make(chan struct{})
	url, peak := server(t, 40, release)
	addr := url[len("http://"):]

	// Ten calls in flight through the flood.
	results := make(chan string, 10)
	for range 10 {
		go func() {
			resp, err := (&http.Client{Transport: &http.Transport{}}).Get(url + "/slow")
			if err != nil {
				results <- err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			results <- string(b)
		}()
	}
	for peak() < 10 {
		time.Sleep(10 * time.Millisecond)
	}

	flood(t, addr, 300, true)  // kept-alive, idle
	flood(t, addr, 300, false) // never a request
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
	for i := range 20 {
		resp, err := client.Get(url + "/healthz")
		if err != nil {
			t.Fatalf("/healthz %d during the flood: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("/healthz %d: %d", i, resp.StatusCode)
		}
		flood(t, addr, 20, false)
	}
	if p := peak(); p > 40 {
		t.Errorf("%d connections open at once, past the ceiling of 40", p)
	}
	close(release)
	for range 10 {
		if got := <-results; got != "done" {
			t.Errorf("a call in flight during the flood: %s", got)
		}
	}
}

package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestConnectionFlood: `serve` with 512 file descriptors, flooded with
// 1,500 connections that each made a request and then sit idle, and 500
// that never send one, still answers /healthz and serves tool calls, and
// never runs out of descriptors.
func TestConnectionFlood(t *testing.T) {
	home := t.TempDir()
	cmd := exec.Command("sh", "-c", `ulimit -n 512 && exec "$0" serve --addr 127.0.0.1:0`, filepath.Join(binDir, "openhuman-core"))
	cmd.Env = testEnv(home)
	url, stderr := serveURL(t, cmd)
	addr := strings.TrimPrefix(url, "http://")

	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	dial := func(request bool) {
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			return // the backlog is full: not the server's to answer
		}
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
		if request {
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
			if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
				resp.Body.Close() // kept alive, and left idle
			}
		}
	}
	sem := make(chan struct{}, 64)
	for i := range 2000 {
		sem <- struct{}{}
		wg.Go(func() { defer func() { <-sem }(); dial(i < 1500) })
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})

	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
	resp, err := client.Get(url + "/healthz")
	if err != nil {
		t.Fatalf("/healthz during a flood of %d connections: %v", len(conns), err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/healthz: %d", resp.StatusCode)
	}
	for i, call := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_learn","params":{"text":"Floods do not stop the server."}}`,
		`{"jsonrpc":"2.0","id":2,"method":"openhuman.memory_fetch","params":{"query":"floods server"}}`,
	} {
		resp, err := client.Post(url+"/rpc", "application/json", strings.NewReader(call))
		if err != nil {
			t.Fatalf("call %d during the flood: %v", i+1, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), `"result"`) || i == 1 && !strings.Contains(string(b), "Floods do not stop the server.") {
			t.Fatalf("call %d: %d %s", i+1, resp.StatusCode, b)
		}
	}
	if strings.Contains(stderr.String(), "too many open files") {
		t.Errorf("serve ran out of descriptors:\n%s", stderr.String())
	}
}

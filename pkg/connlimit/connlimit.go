// Package connlimit keeps an HTTP server's connections below the process's
// file-descriptor limit, and keeps room under that ceiling for a client
// that comes to make a request.
//
// The ceiling is golang.org/x/net/netutil's LimitListener: at it, Accept
// waits until a connection closes, so a flood of connections can never
// take the descriptors SQLite, NATS and the log need ("too many open
// files"). A ceiling alone would leave a newcomer, /healthz included,
// waiting in the kernel's backlog for as long as idle connections are
// let live (two minutes kept alive, ten seconds before a first request).
// So the server's connection states are followed too: once the ceiling
// is reached, a connection no request is being handled on is closed, a
// kept-alive idle one first, then the one that has waited longest for its
// first request, so the next Accept goes ahead. A connection with a
// request in flight is never closed; when every one has, newcomers wait.
package connlimit

import (
	"container/list"
	"net"
	"net/http"
	"sync"

	"golang.org/x/net/netutil"
)

// Serve runs srv on ln with at most max connections open (Default when
// max <= 0), as the package comment says. It takes over srv.ConnState,
// calling any hook already there.
func Serve(srv *http.Server, ln net.Listener, max int) error {
	if max <= 0 {
		max = Default()
	}
	t := &tracker{max: max, at: map[net.Conn]place{}}
	next := srv.ConnState
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		t.changed(c, st)
		if next != nil {
			next(c, st)
		}
	}
	return srv.Serve(netutil.LimitListener(ln, max))
}

// tracker follows the connections that no request is being handled on:
// fresh ones waiting for their first request, and kept-alive idle ones,
// each list oldest first.
type tracker struct {
	mu          sync.Mutex
	max, open   int
	fresh, idle list.List
	at          map[net.Conn]place
}

// place is where a connection is in the lists.
type place struct {
	l *list.List
	e *list.Element
}

func (t *tracker) changed(c net.Conn, st http.ConnState) {
	t.mu.Lock()
	var shed net.Conn
	switch st {
	case http.StateNew:
		t.open++
		t.track(c, &t.fresh)
		if t.open >= t.max { // the listener is full: make room for the next
			shed = t.oldest(c)
		}
	case http.StateIdle:
		t.forget(c)
		if t.open >= t.max {
			shed = c // someone may be waiting to be accepted
		} else {
			t.track(c, &t.idle)
		}
	case http.StateActive:
		t.forget(c)
	case http.StateHijacked, http.StateClosed:
		t.forget(c)
		t.open--
	}
	t.mu.Unlock()
	if shed != nil {
		_ = shed.Close() // its StateClosed frees the slot
	}
}

// oldest takes the connection to close out of the lists: the oldest idle
// one, else the oldest fresh one other than except; nil when every other
// connection is handling a request.
func (t *tracker) oldest(except net.Conn) net.Conn {
	for _, l := range []*list.List{&t.idle, &t.fresh} {
		for e := l.Front(); e != nil; e = e.Next() {
			if c := e.Value.(net.Conn); c != except {
				t.forget(c)
				return c
			}
		}
	}
	return nil
}

func (t *tracker) track(c net.Conn, l *list.List) { t.at[c] = place{l, l.PushBack(c)} }

func (t *tracker) forget(c net.Conn) {
	if p, ok := t.at[c]; ok {
		p.l.Remove(p.e)
		delete(t.at, c)
	}
}

// fallback is the ceiling when the descriptor limit is unknown.
const fallback = 1024

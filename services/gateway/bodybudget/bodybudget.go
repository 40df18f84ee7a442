// Package bodybudget bounds the request body bytes the process holds at
// once, across all requests (http.max_body_bytes_in_flight). Each route
// bounds its own bodies (4 MiB at /rpc and /mcp), but many of them at
// once are many times that: 256 bodies of 4 MiB sent together took the
// process past 3.7 GB. A request whose body would go past what is left is
// answered 503 with Retry-After, never queued: nothing waits for room, so
// nothing waits forever.
//
// A body of declared length reserves it (up to the largest a route reads)
// before the handler runs, and is refused at once when it does not fit.
// A chunked body reserves as it is read, a grain at a time; when the
// budget runs out mid-body, Read fails with ErrExhausted and the handler
// answers 503 in its own way. Every byte is given back when the handler
// returns.
package bodybudget

import (
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// ErrExhausted is a body's Read when the budget cannot hold more of it.
var ErrExhausted = errors.New("the server holds as many request bodies as it may at once")

// RetryAfter is the Retry-After of a refusal, in seconds: bodies in
// flight are read within the body timeout, most within a moment.
const RetryAfter = "1"

// grain is what a chunked body reserves at a time.
const grain = 32 << 10

var refusals = promauto.NewCounter(prometheus.CounterOpts{
	Name: "openhuman_http_body_budget_refusals_total",
	Help: "Requests answered 503 because their body would have taken the bytes held past http.max_body_bytes_in_flight.",
})

// Budget is the bytes of request bodies that may be held at once.
type Budget struct {
	mu    sync.Mutex
	total int64
	used  int64
}

// New is a budget of total bytes.
func New(total int64) *Budget { return &Budget{total: total} }

// InUse is the bytes reserved now.
func (b *Budget) InUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

func (b *Budget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.total {
		return false
	}
	b.used += n
	return true
}

func (b *Budget) give(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
}

// Middleware reserves each request's body in b; perRequest is the most
// a declared length reserves up front (the largest body a route reads).
// A body that does not fit is refused: Retry-After is set and refuse
// writes the answer, in the style of the request's path.
func (b *Budget) Middleware(perRequest int64, refuse http.HandlerFunc) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
				next.ServeHTTP(w, r)
				return
			}
			up := min(max(r.ContentLength, 0), perRequest)
			if !b.take(up) {
				refusals.Inc()
				w.Header().Set("Retry-After", RetryAfter)
				refuse(w, r)
				return
			}
			body := &body{ReadCloser: r.Body, budget: b, w: w, held: up}
			defer body.release()
			r.Body = body
			next.ServeHTTP(w, r)
		})
	}
}

// body is a request body whose bytes are reserved before they are read.
type body struct {
	io.ReadCloser
	budget     *Budget
	w          http.ResponseWriter
	mu         sync.Mutex
	held, read int64
	done       atomic.Bool
}

var errReleased = errors.New("bodybudget: the body was read after its handler returned")

func (rb *body) Read(p []byte) (int, error) {
	if rb.done.Load() {
		return 0, errReleased
	}
	rb.mu.Lock()
	defer rb.mu.Unlock()
	if len(p) > 0 && rb.held == rb.read {
		if !rb.budget.take(grain) {
			refusals.Inc()
			rb.w.Header().Set("Retry-After", RetryAfter)
			return 0, ErrExhausted
		}
		rb.held += grain
	}
	p = p[:min(int64(len(p)), rb.held-rb.read)]
	n, err := rb.ReadCloser.Read(p)
	rb.read += int64(n)
	return n, err
}

// release gives back what the body reserved, once.
func (rb *body) release() {
	if rb.done.Swap(true) {
		return
	}
	rb.mu.Lock()
	defer rb.mu.Unlock()
	rb.budget.give(rb.held)
	rb.held = 0
}

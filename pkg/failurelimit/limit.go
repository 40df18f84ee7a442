// Package failurelimit slows down guessing: it bounds failed attempts per
// client address (Limiter), and wrong tokens per address counted once each
// (Guard). The console's sign-in, the bearer tokens at /rpc and /mcp, and
// the OAuth server's client registration are held by it.
//
// The buckets are golang.org/x/time/rate's; what this package adds is a
// bucket per address, bounded in number, that only failures spend.
package failurelimit

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiter bounds failed attempts per client address: a few at once, then
// one per interval, so a token cannot be guessed from one address at any
// useful speed. Successful attempts cost nothing.
type Limiter struct {
	mu    sync.Mutex
	every time.Duration
	burst int
	by    map[string]*rate.Limiter
	now   func() time.Time
}

// maxAddresses bounds the addresses tracked; past it the full ones (those
// that failed long enough ago) are dropped.
const maxAddresses = 10000

// NewLimiter allows burst failures from an address, then one per every.
func NewLimiter(every time.Duration, burst int) *Limiter {
	return &Limiter{every: every, burst: burst, by: map[string]*rate.Limiter{}, now: time.Now}
}

// Wait is how long addr must wait before it may try again; 0 when it may now.
func (l *Limiter) Wait(addr string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim, ok := l.by[addr]
	if !ok {
		return 0
	}
	now := l.now()
	if lim.TokensAt(now) >= 1 {
		return 0
	}
	r := lim.ReserveN(now, 1)
	defer r.CancelAt(now)
	return r.DelayFrom(now)
}

// Failed counts one failed attempt from addr.
func (l *Limiter) Failed(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	lim, ok := l.by[addr]
	if !ok {
		if len(l.by) >= maxAddresses {
			for a, old := range l.by {
				if old.TokensAt(now) >= float64(l.burst) {
					delete(l.by, a)
				}
			}
		}
		lim = rate.NewLimiter(rate.Every(l.every), l.burst)
		l.by[addr] = lim
	}
	lim.AllowN(now, 1)
}

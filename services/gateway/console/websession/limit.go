package websession

import (
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/openhuman-go/openhuman-go/services/gateway/clientaddr"
)

// Limiter bounds failed sign-ins per client address: a few at once, then
// one per interval, so a token cannot be guessed from one address at any
// useful speed. Successful sign-ins cost nothing.
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

// Address is the key a request's failures count against: its client
// address, as clientaddr.Key has it (every loopback address one, an IPv6
// address its /64). RemoteAddr holds the client's address already, behind
// a trusted proxy too (clientaddr.Middleware).
func Address(remoteAddr string) string { return clientaddr.Key(remoteAddr) }

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

// Failed counts one failed sign-in from addr.
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

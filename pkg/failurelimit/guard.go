package failurelimit

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"sync"
	"time"
)

// Guard limits wrong tokens, wherever one is presented: the console's
// sign-in, and a bearer token at /rpc and /mcp. It keeps two things.
//
//   - Per client address (the gateway's clientaddr.Key; behind a trusted
//     proxy, the client it forwarded for): a few wrong tokens at once,
//     then one per interval. No source guesses at any useful speed, and a
//     source is held back for its own failures only: a correct token from
//     any other address gets in, whatever is tried elsewhere.
//   - Per token tried: a wrong token counts against its source the first
//     time only, so a client that keeps sending a revoked or mistyped
//     token holds back neither itself nor, behind a proxy not trusted,
//     everyone sharing its address. Only distinct guesses cost. The token
//     is remembered by HMAC-SHA-256 under a key made at start and never
//     kept: no token, nor a plain hash a guess could be checked against,
//     is stored.
//
// Successful sign-ins cost nothing.
type Guard struct {
	sources *Limiter
	key     []byte
	mu      sync.Mutex
	counted map[[sha256.Size]byte]time.Time // wrong tokens counted, and when
}

const (
	// wrongKept is how long a wrong token counted stays known.
	wrongKept = time.Hour
	// maxWrongKept bounds the wrong tokens known; when full, a token not
	// known counts (a flood of guesses costs its sources as it should).
	maxWrongKept = 10000
)

// DefaultGuard is the edge's: five wrong tokens at once from an address,
// then one every 12 seconds (300 an hour).
func DefaultGuard() *Guard { return NewGuard(12*time.Second, 5) }

// NewGuard allows burst wrong tokens from an address, then one per every.
func NewGuard(every time.Duration, burst int) *Guard {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // crypto/rand.Read never fails
	return &Guard{sources: NewLimiter(every, burst), key: key, counted: map[[sha256.Size]byte]time.Time{}}
}

// Wait is how long the address must wait before presenting another
// token; 0 when it may now.
func (g *Guard) Wait(addr string) time.Duration { return g.sources.Wait(addr) }

// Failed counts a wrong token presented from addr, unless the same token
// was counted within the hour.
func (g *Guard) Failed(addr, token string) {
	if g.known(token) {
		return
	}
	g.sources.Failed(addr)
}

// known reports whether token was counted already, remembering it when not.
func (g *Guard) known(token string) bool {
	m := hmac.New(sha256.New, g.key)
	m.Write([]byte(token))
	var sum [sha256.Size]byte
	m.Sum(sum[:0])
	now := g.sources.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if at, ok := g.counted[sum]; ok && now.Sub(at) < wrongKept {
		return true
	}
	if len(g.counted) >= maxWrongKept {
		for k, at := range g.counted {
			if now.Sub(at) >= wrongKept {
				delete(g.counted, k)
			}
		}
	}
	if len(g.counted) < maxWrongKept {
		g.counted[sum] = now
	}
	return false
}

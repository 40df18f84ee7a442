package callauth

import (
	"context"
	"strings"
	"sync"
	"time"
)

// Nonces remembers the nonces of the proofs a verifier accepted until they
// expire. By default each verifier keeps its own, so a request captured
// and sent again is refused by the replica that took it; replicas of a
// service whose calls must not run twice share one (Redis: package
// callauth/redis), so that none of them takes it again.
type Nonces interface {
	// Add records nonce, valid until exp (Unix ms), and reports whether
	// it was new. An error means it is not known whether it was.
	Add(ctx context.Context, nonce string, exp int64) (bool, error)
}

// Forget is how long after a proof's expiry its nonce must be kept: until
// a verifier would refuse the proof as expired anyway.
func Forget(exp int64) time.Time { return time.UnixMilli(exp).Add(ClockSkew + time.Second) }

var _ Nonces = (*nonces)(nil)

// NewNonces keeps nonces in the process's memory, as a verifier does by
// default.
func NewNonces() Nonces { return newNonces() }

// nonces remembers the nonces of the proofs a verifier accepted until each
// proof expires, so that a request sent again is refused. They are kept in
// buckets by the second they expire in, so that forgetting the expired
// ones costs what they are, not what is kept.
type nonces struct {
	mu      sync.Mutex
	seen    map[string]struct{}
	buckets map[int64][]string // expiry second → nonces
	oldest  int64              // no bucket is older
	now     func() time.Time
}

func newNonces() *nonces {
	return &nonces{seen: map[string]struct{}{}, buckets: map[int64][]string{}, now: time.Now}
}

// Add records nonce in the process's memory.
func (n *nonces) Add(_ context.Context, nonce string, exp int64) (bool, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.expire()
	if _, dup := n.seen[nonce]; dup {
		return false, nil
	}
	// The nonce is a piece of the request's decoded headers; kept as it
	// is, it would keep them all alive until it expires.
	nonce = strings.Clone(nonce)
	n.seen[nonce] = struct{}{}
	sec := Forget(exp).Unix()
	n.buckets[sec] = append(n.buckets[sec], nonce)
	if n.oldest == 0 || sec < n.oldest {
		n.oldest = sec
	}
	return true, nil
}

// expire forgets the nonces of proofs expired by now; n.mu is held.
func (n *nonces) expire() {
	now := n.now().Unix()
	for len(n.buckets) > 0 && n.oldest < now {
		for _, nonce := range n.buckets[n.oldest] {
			delete(n.seen, nonce)
		}
		delete(n.buckets, n.oldest)
		n.oldest++
	}
	if len(n.buckets) == 0 {
		n.oldest = 0
	}
}

package callauth

import (
	"sync"
	"time"
)

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

// add records nonce, valid until exp (Unix ms), and reports whether it was
// new.
func (n *nonces) add(nonce string, exp int64) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.expire()
	if _, dup := n.seen[nonce]; dup {
		return false
	}
	n.seen[nonce] = struct{}{}
	// Kept until the verifier would refuse the proof as expired anyway.
	sec := time.UnixMilli(exp).Add(ClockSkew).Unix() + 1
	n.buckets[sec] = append(n.buckets[sec], nonce)
	if n.oldest == 0 || sec < n.oldest {
		n.oldest = sec
	}
	return true
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

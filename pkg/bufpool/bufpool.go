// Package bufpool reuses the byte buffers replies are written into: a
// fetch's reply is tens of KB, written once by the memory service and once
// more as the gateway's response frame, and a new buffer each time was
// most of a call's garbage outside retrieval. A buffer grown past the
// pool's bound is left to the collector, so that one huge reply does not
// stay pinned.
package bufpool

import "sync"

// Pool hands out buffers of at least size bytes and takes back those of at
// most max.
type Pool struct {
	p   sync.Pool
	max int
}

// New makes a pool of buffers of size bytes, keeping none over max.
func New(size, max int) *Pool {
	p := &Pool{max: max}
	p.p.New = func() any { b := make([]byte, 0, size); return &b }
	return p
}

// Get returns an empty buffer.
func (p *Pool) Get() *[]byte {
	b := p.p.Get().(*[]byte)
	*b = (*b)[:0]
	return b
}

// Put gives b back, holding buf, what was last written into it (it may
// have grown past b's own slice); nothing may use either afterwards.
func (p *Pool) Put(b *[]byte, buf []byte) {
	if cap(buf) > p.max {
		return
	}
	*b = buf[:0]
	p.p.Put(b)
}

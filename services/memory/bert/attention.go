package bert

import (
	"math"
	"runtime"
	"sync"
)

// headScratch holds one head's operands laid out for the matrix kernel:
// the head's queries (scaled) and keys as rows, its values transposed, and
// the scores. Sequences are padded to a multiple of 8 with zeros, so that
// every product runs in the kernel's eight lanes.
type headScratch struct {
	n, n8, d int
	q, k     []float32 // [n][d], [n8][d]
	vt       []float32 // [d][n8]
	p        []float32 // [n][n8]
	out      []float32 // [n][d]
	zero     []float32 // a zero bias
}

func newHeadScratch(n, d int) headScratch {
	n8 := (n + 7) &^ 7
	return headScratch{n: n, n8: n8, d: d,
		q: make([]float32, n*d), k: make([]float32, n8*d), vt: make([]float32, d*n8),
		p: make([]float32, n*n8), out: make([]float32, n*d), zero: make([]float32, max(n8, d))}
}

// attention writes into s.ctx each head's softmax(Q·Kᵀ/√d)·V, the heads
// shared out among the workers.
func attention(s *scratch, n, h, heads int) {
	d := h / heads
	scale := float32(1 / math.Sqrt(float64(d)))
	var wg sync.WaitGroup
	for w := range s.heads {
		hs := &s.heads[w]
		wg.Go(func() {
			for hd := w; hd < heads; hd += len(s.heads) {
				hs.head(s, hd*d, h, scale)
			}
		})
	}
	wg.Wait()
}

// head computes one head, whose columns start at off in rows of width h.
func (hs *headScratch) head(s *scratch, off, h int, scale float32) {
	n, n8, d := hs.n, hs.n8, hs.d
	for i := range n {
		for c := range d {
			hs.q[i*d+c] = s.q[i*h+off+c] * scale
			hs.vt[c*n8+i] = s.v[i*h+off+c]
		}
		copy(hs.k[i*d:(i+1)*d], s.k[i*h+off:i*h+off+d])
	}
	scores := linear{w: hs.k, b: hs.zero, in: d, out: n8}
	scores.cols(hs.q, hs.p, n, 0, n8)
	for i := range n {
		row := hs.p[i*n8 : (i+1)*n8]
		softmax(row[:n])
		clear(row[n:]) // the padding's keys weigh nothing
	}
	mix := linear{w: hs.vt, b: hs.zero, in: n8, out: d}
	mix.cols(hs.p, hs.out, n, 0, d)
	for i := range n {
		copy(s.ctx[i*h+off:i*h+off+d], hs.out[i*d:(i+1)*d])
	}
}

// workers is how many goroutines share a product or the heads.
func workers() int { return runtime.GOMAXPROCS(0) }

// parallel runs f over [0, n) in one chunk per worker, or in one call
// when n is below least.
func parallel(n, least int, f func(lo, hi int)) {
	w := workers()
	if n < least || w == 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	chunk := (n + w - 1) / w
	for lo := 0; lo < n; lo += chunk {
		hi := lo + chunk
		if hi > n {
			hi = n
		}
		wg.Go(func() { f(lo, hi) })
	}
	wg.Wait()
}

// Package vectorindex is the memory service's vector search: the vectors
// of one model held in memory as two compact codes each, the sign bits (a
// binary code, compared by Hamming distance) and int8 components (compared
// by dot product). Small or filtered sets are scored exactly on the int8
// codes; large ones get a binary pre-pass that keeps the closest
// candidates, then the int8 rescore. The float vectors stay in the store,
// which is the truth an index is rebuilt from.
package vectorindex

import (
	"math"
	"sync"

	"github.com/openhuman-go/openhuman-go/services/memory/topk"
)

// Index holds unit vectors of one dimension by item seq. It is safe for
// concurrent use.
type Index struct {
	mu    sync.RWMutex
	dim   int
	words int // uint64 words per binary code
	seqs  []int64
	code  []uint64
	q8    []int8
	scale []float32 // per vector: float ≈ int8 × scale
	slot  map[int64]int
	free  []int
	// every is the slots in order, 0 to len(seqs)-1: a search over the
	// whole index reads them when none is free, instead of listing the
	// live ones each time.
	every []int32
}

// exactBelow is the number of candidates up to which search is exact.
const exactBelow = 4096

// New returns an empty index of dim-component vectors.
func New(dim int) *Index {
	return &Index{dim: dim, words: (dim + 63) / 64, slot: map[int64]int{}}
}

// Len is how many vectors the index holds.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.slot)
}

// Put adds or replaces seq's vector; one of another dimension is ignored.
func (x *Index) Put(seq int64, v []float32) {
	if len(v) != x.dim {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	s, ok := x.slot[seq]
	if !ok {
		if n := len(x.free); n > 0 {
			s, x.free = x.free[n-1], x.free[:n-1]
		} else {
			s = len(x.seqs)
			x.every = append(x.every, int32(s))
			x.seqs = append(x.seqs, 0)
			x.code = append(x.code, make([]uint64, x.words)...)
			x.q8 = append(x.q8, make([]int8, x.dim)...)
			x.scale = append(x.scale, 0)
		}
		x.slot[seq] = s
	}
	x.seqs[s] = seq
	signBits(x.code[s*x.words:(s+1)*x.words], v)
	x.scale[s] = quantizeInto(x.q8[s*x.dim:(s+1)*x.dim], v)
}

// Remove drops seq's vector.
func (x *Index) Remove(seq int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if s, ok := x.slot[seq]; ok {
		delete(x.slot, seq)
		x.seqs[s] = 0
		x.free = append(x.free, s)
	}
}

// Search returns the k vectors closest to q (unit length), best first,
// scored by their dot product with it, among those it scores above 0: a
// vector at a right angle to q or beyond is nothing like it, and leaving
// those out spares ranking some half of the index for a query near none.
// allowed, when not nil, restricts the search to those seqs.
func (x *Index) Search(q []float32, k int, allowed []int64) []topk.Ranked {
	if len(q) != x.dim || k <= 0 {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	sc := searchPool.Get().(*searchScratch)
	defer searchPool.Put(sc)
	slots := sc.slots[:0]
	switch {
	case allowed != nil:
		for _, seq := range allowed {
			if s, ok := x.slot[seq]; ok {
				slots = append(slots, int32(s))
			}
		}
		sc.slots = slots
		if len(slots) > exactBelow {
			slots = x.prepass(q, slots, prepassKeep(k), sc)
		}
	case len(x.slot) <= exactBelow && len(x.free) == 0:
		slots = x.every // read only: sc.slots is left as it was
	case len(x.slot) <= exactBelow:
		for s, seq := range x.seqs {
			if seq != 0 {
				slots = append(slots, int32(s))
			}
		}
		sc.slots = slots
	default:
		slots = x.prepass(q, nil, prepassKeep(k), sc)
	}
	qq, qscale := quantize(q)
	dots := grow(sc.dots, len(slots))
	sc.dots = dots
	dotSlots(x.q8, x.dim, slots, qq, dots)
	hits := sc.hits[:0]
	for i, s := range slots {
		if dots[i] <= 0 {
			continue
		}
		score := float32(dots[i]) * x.scale[s] * qscale
		hits = append(hits, topk.Ranked{Seq: x.seqs[s], Score: float64(score)})
	}
	sc.hits = hits
	return topk.Select(hits, k)
}

// searchScratch is a search's working space, reused: a search at 10k items
// would otherwise leave some 50 KB of garbage behind each time.
type searchScratch struct {
	slots, kept []int32
	dots        []int32
	dist        []uint16
	hits        []topk.Ranked
}

var searchPool = sync.Pool{New: func() any { return new(searchScratch) }}

// grow returns b resized to n, reallocated only when too small.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

func prepassKeep(k int) int { return max(4*k, 1024) }

// prepass keeps the keep slots (of candidates, or of all when nil) whose
// binary codes are nearest q's, by counting Hamming distances.
func (x *Index) prepass(q []float32, candidates []int32, keep int, sc *searchScratch) []int32 {
	qcode := make([]uint64, x.words)
	signBits(qcode, q)
	var hist [1025]uint32 // distances up to 1024 bits
	var ds []uint16
	if candidates == nil {
		ds = grow(sc.dist, len(x.seqs))
		hammingHist(x.code, qcode, x.words, ds, &hist)
		for _, s := range x.free { // removed: not candidates
			hist[ds[s]]--
			ds[s] = math.MaxUint16
		}
	} else {
		ds = grow(sc.dist, len(candidates))
		for i, s := range candidates {
			code := x.code[int(s)*x.words : (int(s)+1)*x.words]
			hammingHist(code, qcode, x.words, ds[i:i+1], &hist)
		}
	}
	sc.dist = ds
	limit, n := 0, 0
	for limit = 0; limit < len(hist); limit++ {
		if n += int(hist[limit]); n >= keep {
			break
		}
	}
	// Every slot is written and the next one kept only when within the
	// limit: about one in ten is, unpredictably, and a branch on it
	// mispredicted costs more than the stores.
	// n counts the slots within the limit (all of them when fewer than
	// keep): the writes reach n at most.
	out := grow(sc.kept, n+1)
	n = 0
	for i, d := range ds {
		out[n] = int32(i)
		n += int(uint64(int64(limit)-int64(d))>>63) ^ 1
	}
	out = out[:n]
	if candidates != nil {
		for i, c := range out {
			out[i] = candidates[c]
		}
	}
	sc.kept = out
	return out
}

// Normalize scales v to unit length in place (a zero vector stays zero) and
// returns it. Scores are cosines only between unit vectors, so vectors for
// an index, and queries, are made with this.
func Normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	n := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= n
	}
	return v
}

// quantize returns q's int8 code and its scale (float ≈ int8 × scale).
func quantize(q []float32) ([]int8, float32) {
	out := make([]int8, len(q))
	return out, quantizeInto(out, q)
}

// quantizeInto writes v's int8 code into dst, components in [-127, 127]
// scaled by the largest magnitude, and returns the scale.
func quantizeInto(dst []int8, v []float32) float32 {
	var maxAbs float32
	for _, f := range v {
		if a := float32(math.Abs(float64(f))); a > maxAbs {
			maxAbs = a
		}
	}
	if maxAbs == 0 {
		maxAbs = 1
	}
	for i, f := range v {
		dst[i] = int8(math.Round(float64(f / maxAbs * 127)))
	}
	return maxAbs / 127
}

// signBits sets in dst (zeroed first) the bit of each positive component
// of v: the binary code the pre-pass compares.
func signBits(dst []uint64, v []float32) {
	clear(dst)
	for i, f := range v {
		if f > 0 {
			dst[i/64] |= 1 << (i % 64)
		}
	}
}

package keywordindex

import "slices"

// Most of a search whose query holds a common word ("team", in every note
// of a team's memory) went to scoring and ranking every item holding it,
// though a common word weighs almost nothing in BM25 (its idf is at the
// floor) and the k best are among the items holding the rare words. The
// search scores those only when that is provably the same: every other
// item's score is below the sum of the common terms' bounds, and the k-th
// best candidate is checked to be above it; when it is not, the search
// ranks every item as before.

// termPlan is one query term as a search reads it: its postings and weight,
// its alternatives (alts[altFrom:altTo] of the scratch), and the most it
// can add to an item's score.
type termPlan struct {
	p              *postings // nil when no item holds the term
	idf            float64
	grouped        bool // alternatives exist: an item takes the best of them
	altFrom, altTo int
	bound          float64
	postings       int // postings of the term and its alternatives
}

// altPlan is an alternative with postings, and its weight times idf.
type altPlan struct {
	p   *postings
	idf float64
}

// rareFactor is how far below the least rare term's bound the common terms'
// bounds together must be for a search to leave their items out: far enough
// that the check after scoring almost always passes.
const rareFactor = 1e-3

// pickRare chooses the rare terms: the fewest of plans, highest bound first
// (sc.order), whose items are at least k postings and at most half of all,
// with the others' bounds summing to under rareFactor of the last chosen's.
// It returns how many, 0 when pruning is not worth it or cannot hold, and
// the sum of the others' bounds.
func pickRare(plans []termPlan, k int, sc *scratch) (int, float64) {
	if len(plans) < 2 {
		return 0, 0
	}
	order := sc.order[:0]
	total := 0
	for i, pl := range plans {
		order = append(order, i)
		total += pl.postings
	}
	sc.order = order
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case plans[a].bound > plans[b].bound:
			return -1
		case plans[a].bound < plans[b].bound:
			return 1
		}
		return a - b
	})
	suffix := grow(sc.suffix, len(order)+1)
	sc.suffix = suffix
	suffix[len(order)] = 0
	for i := len(order) - 1; i >= 0; i-- {
		suffix[i] = suffix[i+1] + plans[order[i]].bound
	}
	chosen := 0
	for j, i := range order[:len(order)-1] {
		chosen += plans[i].postings
		if 2*chosen > total {
			return 0, 0
		}
		if chosen >= k && suffix[j+1] < rareFactor*plans[i].bound {
			// A float sum of parts each below its bound may round above
			// the bounds' exact sum: a margin covers that.
			return j + 1, suffix[j+1] * (1 + 1e-9)
		}
	}
	return 0, 0
}

// grow returns b resized to n, reallocated only when too small.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// marks is a set of slots: a bitset with the words it set, to clear.
type marks struct {
	bits []uint64
	set  []uint32 // indexes of words not zero
}

func (m *marks) size(n int) {
	if w := (n + 63) / 64; len(m.bits) < w {
		m.bits = make([]uint64, w+w/4)
	}
}

func (m *marks) markAll(slots []uint32) {
	for _, s := range slots {
		w := s / 64
		if m.bits[w] == 0 {
			m.set = append(m.set, w)
		}
		m.bits[w] |= 1 << (s % 64)
	}
}

func (m *marks) has(s uint32) bool { return m.bits[s/64]&(1<<(s%64)) != 0 }

func (m *marks) reset() {
	for _, w := range m.set {
		m.bits[w] = 0
	}
	m.set = m.set[:0]
}

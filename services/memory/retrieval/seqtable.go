package retrieval

// seqTable maps item seqs to small indexes, by open addressing in a table
// at least twice the size of what it holds: fusion looks up every hit of
// both legs, and a Go map's hashing and growth were most of its time.
type seqTable struct {
	seqs []int64 // 0: empty (seqs start at 1)
	idx  []int32
	mask int
}

// reset empties t and sizes it for n seqs.
func (t *seqTable) reset(n int) {
	size := 16
	for size < 2*n {
		size *= 2
	}
	if len(t.seqs) < size {
		t.seqs, t.idx = make([]int64, size), make([]int32, size)
	} else {
		size = len(t.seqs)
		clear(t.seqs)
	}
	t.mask = size - 1
}

// slot is where seq is, or the empty place where it would go.
func (t *seqTable) slot(seq int64) int {
	// Fibonacci hashing spreads consecutive seqs over the table.
	h := int((uint64(seq) * 0x9E3779B97F4A7C15) >> 32)
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		if s := t.seqs[i]; s == seq || s == 0 {
			return i
		}
	}
}

func (t *seqTable) get(seq int64) (int, bool) {
	i := t.slot(seq)
	return int(t.idx[i]), t.seqs[i] == seq
}

// put adds seq, which t must not hold, with index i; t holds at most the
// n it was reset for.
func (t *seqTable) put(seq int64, i int) {
	s := t.slot(seq)
	t.seqs[s], t.idx[s] = seq, int32(i)
}

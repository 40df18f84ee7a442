package memory

// better orders hits best first; ties go to the newest item.
func better(a, b Ranked) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Seq > b.Seq
}

// topHits keeps the k best hits seen as a min-heap whose root is the worst
// kept: selecting k of n costs n log k, where sorting all would cost n log n.
type topHits []Ranked

func (t *topHits) offer(h Ranked, k int) {
	if k <= 0 {
		return
	}
	if len(*t) < k {
		*t = append(*t, h)
		t.up(len(*t) - 1)
		return
	}
	if better(h, (*t)[0]) {
		(*t)[0] = h
		t.down(0)
	}
}

func (t topHits) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(t[p], t[i]) {
			break
		}
		t[p], t[i] = t[i], t[p]
		i = p
	}
}

func (t topHits) down(i int) {
	for {
		w, l, r := i, 2*i+1, 2*i+2
		if l < len(t) && better(t[w], t[l]) {
			w = l
		}
		if r < len(t) && better(t[w], t[r]) {
			w = r
		}
		if w == i {
			return
		}
		t[i], t[w] = t[w], t[i]
		i = w
	}
}

// sorted empties the heap into a slice, best first.
func (t topHits) sorted() []Ranked {
	out := make([]Ranked, len(t))
	for n := len(t) - 1; n >= 0; n-- {
		out[n] = t[0]
		t[0] = t[n]
		t = t[:n]
		t.down(0)
	}
	return out
}

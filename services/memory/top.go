package memory

// better orders hits best first; ties go to the newest item.
func better(a, b Ranked) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Seq > b.Seq
}

// topK reorders hits so that its first k are the best, best first, and
// returns them. A heap of the k best so far, with the worst at its root,
// sees each other hit with one comparison unless the hit belongs in it;
// the heap is then sorted in place. better is called directly, not through
// a function value: an indirect call per comparison was most of the cost.
func topK(hits []Ranked, k int) []Ranked {
	if k <= 0 {
		return hits[:0]
	}
	h := hits[:min(k, len(hits))]
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	for _, x := range hits[len(h):] {
		if better(x, h[0]) {
			h[0] = x
			siftDown(h, 0)
		}
	}
	for n := len(h) - 1; n > 0; n-- {
		h[0], h[n] = h[n], h[0]
		siftDown(h[:n], 0)
	}
	return h
}

// siftDown moves h[i] down until no child of it is worse.
func siftDown(h []Ranked, i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && better(h[c], h[c+1]) {
			c++ // the worse child
		}
		if !better(h[i], h[c]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// largestFirst partitions keys so that the k largest come first, in any
// order: quickselect, linear on average.
func largestFirst(keys []uint64, k int) {
	lo, hi := 0, len(keys)-1
	for lo < hi {
		// Median of three as the pivot keeps sorted input linear too.
		mid := lo + (hi-lo)/2
		if keys[mid] > keys[lo] {
			keys[mid], keys[lo] = keys[lo], keys[mid]
		}
		if keys[hi] > keys[lo] {
			keys[hi], keys[lo] = keys[lo], keys[hi]
		}
		if keys[hi] > keys[mid] {
			keys[hi], keys[mid] = keys[mid], keys[hi]
		}
		pivot := keys[mid]
		i, j := lo, hi
		for i <= j {
			for keys[i] > pivot {
				i++
			}
			for pivot > keys[j] {
				j--
			}
			if i <= j {
				keys[i], keys[j] = keys[j], keys[i]
				i++
				j--
			}
		}
		// keys[lo..j] are no smaller than the pivot, keys[i..hi] no larger.
		switch {
		case k-1 <= j:
			hi = j
		case k-1 >= i:
			lo = i
		default:
			return
		}
	}
}

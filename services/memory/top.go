package memory

// better orders hits best first; ties go to the newest item.
func better(a, b Ranked) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Seq > b.Seq
}

// topK reorders hits so that its first k are the best, best first, and
// returns them. Selecting first (quickselect, linear on average) and sorting
// only the k kept costs far less than sorting every candidate. Both steps
// are written for Ranked, not with a comparison function: an indirect call
// per comparison was most of their cost, and every ranking here (each leg,
// and the fused one) orders by score, then seq.
func topK(hits []Ranked, k int) []Ranked {
	if k <= 0 {
		return hits[:0]
	}
	if len(hits) > k {
		selectBest(hits, k)
		hits = hits[:k]
	}
	heapSort(hits)
	return hits
}

// selectBest partitions hits so that the k best come first, in any order.
func selectBest(hits []Ranked, k int) {
	lo, hi := 0, len(hits)-1
	for lo < hi {
		// Median of three as the pivot keeps sorted input linear too.
		mid := lo + (hi-lo)/2
		if better(hits[mid], hits[lo]) {
			hits[mid], hits[lo] = hits[lo], hits[mid]
		}
		if better(hits[hi], hits[lo]) {
			hits[hi], hits[lo] = hits[lo], hits[hi]
		}
		if better(hits[hi], hits[mid]) {
			hits[hi], hits[mid] = hits[mid], hits[hi]
		}
		pivot := hits[mid]
		i, j := lo, hi
		for i <= j {
			for better(hits[i], pivot) {
				i++
			}
			for better(pivot, hits[j]) {
				j--
			}
			if i <= j {
				hits[i], hits[j] = hits[j], hits[i]
				i++
				j--
			}
		}
		// hits[lo..j] are no worse than the pivot, hits[i..hi] no better.
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

// heapSort puts hits in order, best first: a heap with the worst at its
// root, whose root is moved to the end until none is left.
func heapSort(h []Ranked) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	for n := len(h) - 1; n > 0; n-- {
		h[0], h[n] = h[n], h[0]
		siftDown(h[:n], 0)
	}
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

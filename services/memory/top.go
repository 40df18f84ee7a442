package memory

import "slices"

// better orders hits best first; ties go to the newest item.
func better(a, b Ranked) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Seq > b.Seq
}

// compareBy turns a "better" order into a comparison for slices.SortFunc.
func compareBy[T any](better func(a, b T) bool) func(a, b T) int {
	return func(a, b T) int {
		switch {
		case better(a, b):
			return -1
		case better(b, a):
			return 1
		}
		return 0
	}
}

// topK reorders hits so that its first k are the best, best first, and
// returns them. Selecting first (quickselect, linear on average) and sorting
// only the k kept costs far less than sorting every candidate.
func topK[T any](hits []T, k int, better func(a, b T) bool) []T {
	if k <= 0 {
		return hits[:0]
	}
	if len(hits) > k {
		selectBest(hits, k, better)
		hits = hits[:k]
	}
	slices.SortFunc(hits, compareBy(better))
	return hits
}

// selectBest partitions hits so that the k best come first, in any order.
func selectBest[T any](hits []T, k int, better func(a, b T) bool) {
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

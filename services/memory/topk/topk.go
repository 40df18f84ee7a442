// Package topk picks the k best of a ranking, best first, ties to the
// newest item. Every ranking of the memory service (the keyword and vector
// legs, and their fusion) goes through it, so they break ties alike.
package topk

import (
	"math"
	"math/bits"
	"slices"
	"sync"
)

// Ranked is an item's position in a ranking, with its score.
type Ranked struct {
	Seq   int64
	Score float64
}

// better orders hits best first; ties go to the newest item.
func better(a, b Ranked) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Seq > b.Seq
}

// Select returns the k best of hits, best first. Comparing Ranked values
// one by one (through better, or worse through a function value) was most
// of a search's ranking time, so each hit is packed into a uint64: its
// score rounded to float32, in bits that order as floats do, above its
// position in hits. Selection and sorting then compare plain integers.
// Rounding keeps the order between different rounded scores (a > b implies
// float32(a) >= float32(b)), so only runs of equal rounded scores need
// better's exact order afterwards; runs are short unless many scores tie.
// BenchmarkSelect has this some five times as fast as sorting hits by
// better.
func Select(hits []Ranked, k int) []Ranked {
	if k <= 0 || len(hits) == 0 {
		return nil
	}
	kp := keysPool.Get().(*[]uint64)
	defer keysPool.Put(kp)
	keys := slices.Grow((*kp)[:0], len(hits))[:len(hits)]
	for i, h := range hits {
		keys[i] = uint64(orderedBits(float32(h.Score)))<<32 | uint64(i)
	}
	*kp = keys
	if len(keys) > k {
		largestFirst(keys, k)
		// Hits past the k-th whose rounded score equals its may still be
		// better than it: keep them for the exact order to decide.
		kth := slices.Min(keys[:k]) >> 32
		m := k
		for i := k; i < len(keys); i++ {
			if keys[i]>>32 == kth {
				keys[m], keys[i] = keys[i], keys[m]
				m++
			}
		}
		if m > k {
			// More ties at the k-th score than places left: the rest
			// is chosen among them in exact order, without sorting
			// them all (every note of one length holding the query's
			// words once ties: thousands of them).
			return selectTied(hits, keys[:m], kth, k)
		}
		keys = keys[:m]
	}
	return appendOrdered(make([]Ranked, 0, len(keys)), hits, keys)[:min(k, len(keys))]
}

// appendOrdered appends the hits keys name to out, best first, and
// returns it; keys are put in ascending order.
func appendOrdered(out, hits []Ranked, keys []uint64) []Ranked {
	slices.Sort(keys)
	from := len(out)
	for i := len(keys) - 1; i >= 0; i-- {
		out = append(out, hits[uint32(keys[i])])
	}
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[len(keys)-1-j]>>32 == keys[len(keys)-1-i]>>32 {
			j++
		}
		if j-i > 1 {
			orderRun(out[from+i : from+j])
		}
		i = j
	}
	return out
}

// selectTied returns the k best of cands (keys of hits), best first, when
// those whose rounded score is kth are more than the places they compete
// for. The others are better than every one of them, so all of those are
// kept; the tied fill the rest, chosen through a heap of the places left
// whose root is the worst kept.
func selectTied(hits []Ranked, cands []uint64, kth uint64, k int) []Ranked {
	tp := keysPool.Get().(*[]uint64)
	defer keysPool.Put(tp)
	tied := (*tp)[:0]
	// cands is read ahead of where the better ones are written back.
	above := cands[:0]
	for _, key := range cands {
		if key>>32 == kth {
			tied = append(tied, key)
		} else {
			above = append(above, key)
		}
	}
	*tp = tied
	need := k - len(above)
	if same, ok := sameScore(hits, tied); ok {
		// True ties, the usual case, go to the newest: the largest seqs,
		// picked as integers, in the place of the keys they are read
		// from, and put after every better hit in order.
		seqs := tied
		for i, key := range tied {
			seqs[i] = uint64(hits[uint32(key)].Seq)
		}
		largestFirst(seqs, need)
		seqs = seqs[:need]
		slices.Sort(seqs)
		out := appendOrdered(make([]Ranked, 0, k), hits, above)
		for i := len(seqs) - 1; i >= 0; i-- {
			out = append(out, Ranked{Seq: int64(seqs[i]), Score: same})
		}
		return out
	}
	out := make([]Ranked, 0, k)
	for _, key := range above {
		out = append(out, hits[uint32(key)])
	}
	heap := make([]Ranked, 0, need)
	for _, key := range tied {
		h := hits[uint32(key)]
		switch {
		case len(heap) < need:
			heap = append(heap, h)
			for i := len(heap) - 1; i > 0; {
				parent := (i - 1) / 2
				if !better(heap[parent], heap[i]) {
					break
				}
				heap[parent], heap[i] = heap[i], heap[parent]
				i = parent
			}
		case better(h, heap[0]):
			heap[0] = h
			for i := 0; ; {
				worst, l, r := i, 2*i+1, 2*i+2
				if l < len(heap) && better(heap[worst], heap[l]) {
					worst = l
				}
				if r < len(heap) && better(heap[worst], heap[r]) {
					worst = r
				}
				if worst == i {
					break
				}
				heap[i], heap[worst] = heap[worst], heap[i]
				i = worst
			}
		}
	}
	out = append(out, heap...)
	slices.SortFunc(out, compareRanked)
	return out
}

// sameScore reports the score of the hits keys name when they all have it.
func sameScore(hits []Ranked, keys []uint64) (float64, bool) {
	first := hits[uint32(keys[0])].Score
	for _, key := range keys[1:] {
		if hits[uint32(key)].Score != first {
			return 0, false
		}
	}
	return first, true
}

// orderRun puts hits whose rounded scores are equal in better's order. Most
// such runs are true ties (notes of one length matching one query word
// score the same), ordered by seq alone: those sort as integers.
func orderRun(run []Ranked) {
	for _, h := range run[1:] {
		if h.Score != run[0].Score {
			slices.SortFunc(run, compareRanked)
			return
		}
	}
	seqs := make([]int64, len(run))
	for i, h := range run {
		seqs[i] = h.Seq
	}
	slices.Sort(seqs)
	for i, seq := range seqs {
		run[len(run)-1-i].Seq = seq
	}
}

var keysPool = sync.Pool{New: func() any { return new([]uint64) }}

func compareRanked(a, b Ranked) int {
	switch {
	case better(a, b):
		return -1
	case better(b, a):
		return 1
	}
	return 0
}

// orderedBits maps a float32 to a uint32 whose order is the floats' order.
func orderedBits(f float32) uint32 {
	b := math.Float32bits(f)
	if b&(1<<31) != 0 {
		return ^b // negative: a larger magnitude is smaller
	}
	return b | 1<<31
}

// largestFirst partitions keys so that the k largest come first, in any
// order. Quickselect's comparisons go either way at random, and their
// mispredicted branches were most of its time at 3,000 keys; so when k
// is a small part of many keys, a sample of them sets a threshold that
// somewhat more than k keys pass, those are moved to the front without
// a branch, and only they are quickselected. A threshold that too few
// pass (a rare sample) leaves the whole to quickselect.
func largestFirst(keys []uint64, k int) {
	if len(keys) >= sampleOver && k <= len(keys)/4 {
		var sample [sampleSize]uint64
		for i := range sample {
			sample[i] = keys[i*len(keys)/sampleSize]
		}
		// The sample's j+1 largest have about (j+1)·n/s keys at or
		// above the smallest of them; the margin is three standard
		// deviations of that count.
		exp := k * sampleSize / len(keys)
		j := min(exp+3*int(math.Sqrt(float64(exp)))+2, sampleSize-1)
		quickLargest(sample[:], j+1)
		t := slices.Min(sample[:j+1])
		w := 0
		for i, key := range keys {
			keys[w], keys[i] = key, keys[w]
			_, below := bits.Sub64(key, t, 0)
			w += int(below ^ 1)
		}
		if w >= k {
			quickLargest(keys[:w], k)
			return
		}
	}
	quickLargest(keys, k)
}

// Sampling pays from sampleOver keys; sampleSize keys are sampled.
const sampleOver, sampleSize = 1024, 256

// quickLargest is largestFirst by quickselect, linear on average.
func quickLargest(keys []uint64, k int) {
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

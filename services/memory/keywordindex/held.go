package keywordindex

import (
	"math/bits"
	"slices"
)

// Held tells, for each of seqs, which of keys the item holds: bit i of
// its mask is set when it holds keys[i] (at most 64), or, when bit i of
// forgive is set and like is not nil, a key like says stands for it (the
// same word up to a typo; like is asked only about keys that start with
// the same byte, as typos rarely touch the first letter, are at most two
// bytes longer or shorter, and lack at most two of each other's bytes: at
// most two edits apart). A ranking checks a page of candidates under one
// lock, finding each item once, comparing term ids rather than strings,
// and calls like only for the forgiven keys an item lacks. An item the
// index does not hold gets 0.
func (x *Index) Held(seqs []int64, keys []string, forgive uint64, like func(key, other string) bool, masks []uint64) []uint64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	keys = keys[:min(len(keys), 64)]
	var idsBuf [64]uint32
	var known uint64
	ids := idsBuf[:len(keys)]
	var heads [64]head
	for i, k := range keys {
		var ok bool
		if ids[i], ok = x.ids[k]; ok {
			known |= 1 << i
		}
		heads[i] = headOf(k)
	}
	if like == nil {
		forgive = 0
	}
	masks = masks[:0]
	for _, seq := range seqs {
		slot, ok := x.slotOf(seq)
		if !ok || x.seqs[slot] < 0 {
			masks = append(masks, 0)
			continue
		}
		doc := x.docTerms[x.termAt[slot]:x.termAt[slot+1]] // by first byte, then id
		firsts := x.docFirst[x.termAt[slot]:x.termAt[slot+1]]
		var m uint64
		for b := known | forgive; b != 0; b &= b - 1 {
			i := bits.TrailingZeros64(b)
			// A key and its typos start with the key's first byte.
			first := heads[i].first
			lo, hi := 0, len(firsts)
			for lo < hi {
				if mid := int(uint(lo+hi) >> 1); firsts[mid] < first {
					lo = mid + 1
				} else {
					hi = mid
				}
			}
			for hi < len(firsts) && firsts[hi] == first {
				hi++
			}
			alike := doc[lo:hi]
			if known&(1<<i) != 0 {
				if _, found := slices.BinarySearch(alike, ids[i]); found {
					m |= 1 << i
					continue
				}
			}
			if forgive&(1<<i) != 0 {
				for _, id := range alike {
					if maybeTypo(heads[i], x.heads[id]) && like(keys[i], x.terms[id].key) {
						m |= 1 << i
						break
					}
				}
			}
		}
		masks = append(masks, m)
	}
	return masks
}

// head is what Held's typo check reads of a key before the key itself:
// its first byte, its length (up to 255) and the set of its bytes (a bit
// for each letter, one for everything else). An edit removes at most one
// of the bytes a key holds, so two keys within two edits each lack at most
// two of the other's.
type head struct {
	first, len uint8
	bytes      uint32
}

func headOf(key string) head {
	if key == "" {
		return head{}
	}
	var set uint32
	for i := 0; i < len(key); i++ {
		if c := key[i]; c >= 'a' && c <= 'z' {
			set |= 1 << (c - 'a')
		} else {
			set |= 1 << 31
		}
	}
	return head{first: key[0], len: uint8(min(len(key), 255)), bytes: set}
}

// maybeTypo reports whether keys with heads a and b could be within two
// edits of each other, with the same first byte.
func maybeTypo(a, b head) bool {
	return a.first == b.first && a.first != 0 && int(a.len)-int(b.len) <= 2 && int(b.len)-int(a.len) <= 2 &&
		bits.OnesCount32(a.bytes&^b.bytes) <= 2 && bits.OnesCount32(b.bytes&^a.bytes) <= 2
}

// Package keywordindex is the memory service's keyword search: an inverted
// index over item texts, held in memory for BM25 ranking, so that a query
// reads only the postings of its terms, with no storage round trip. It
// scores as SQLite's FTS5 bm25() did when the index lived there. The store
// holds the texts and is the truth an index is rebuilt from; the service
// feeds it the store's changes before every search.
package keywordindex

import (
	"math"
	"sort"
	"sync"

	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
)

// Index holds the keys of item texts, as textkeys makes them, by item seq.
// It is safe for concurrent use.
//
// Items get slots in seq order and never change (a changed source is
// deleted and stored anew), so postings are appended in order and a removal
// only marks its slot dead. A term's postings are compacted when more than
// half of them are dead, and a term is dropped with its last item: nothing of
// a forgotten item's words stays behind.
type Index struct {
	mu    sync.RWMutex
	ids   map[string]uint32 // term → id
	terms []postings        // by id
	heads []head            // by id, for Held to skip keys without reading them
	free  []uint32          // ids of dropped terms, for reuse
	seqs  []int64           // by slot, ascending; negated when removed
	lens  []uint32          // tokens by slot
	// A slot's distinct term ids are docTerms[termAt[slot]:termAt[slot+1]],
	// ordered by their key's first byte, then id, and docFirst holds those
	// first bytes: Held looks for a key, or a typo of it, among the item's
	// terms that start alike only, found without reading other terms.
	termAt   []uint32
	docTerms []uint32
	docFirst []uint8
	live     int
	dead     int // removed slots not yet compacted away
	totalLen int64
	tok      textkeys.Tokenizer // used under mu's write lock only
	seen     map[uint32]uint16
}

type postings struct {
	key   string
	slots []uint32
	tfs   []uint16 // term frequency, saturating
	df    int      // live items holding the term
}

// BM25 parameters, as in SQLite's FTS5 bm25() and most search engines.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// New returns an empty index.
func New() *Index {
	return &Index{ids: map[string]uint32{}, termAt: []uint32{0}, seen: map[uint32]uint16{}}
}

// Add indexes an item: the keys textkeys makes of text, and keys as they
// are (each counted as a token of the text; a caller's own kind of key,
// one textkeys never makes). Seqs must arrive in ascending order; an item
// at or below the newest indexed seq is ignored.
func (x *Index) Add(seq int64, text string, keys ...string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if n := len(x.seqs); n > 0 && abs64(x.seqs[n-1]) >= seq {
		return
	}
	clear(x.seen)
	var length uint32
	count := func(key []byte) {
		length++
		id, ok := x.ids[string(key)]
		if !ok {
			id = x.newTerm(string(key))
		}
		if tf := x.seen[id]; tf < math.MaxUint16 {
			x.seen[id] = tf + 1
		}
	}
	x.tok.Each(text, count)
	for _, k := range keys {
		count([]byte(k))
	}
	slot := uint32(len(x.seqs))
	x.seqs = append(x.seqs, seq)
	x.lens = append(x.lens, length)
	ids := make([]uint32, 0, len(x.seen))
	for id := range x.seen {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if a, b := x.heads[ids[i]].first, x.heads[ids[j]].first; a != b {
			return a < b
		}
		return ids[i] < ids[j]
	})
	for _, id := range ids {
		p := &x.terms[id]
		p.slots = append(p.slots, slot)
		p.tfs = append(p.tfs, x.seen[id])
		p.df++
	}
	x.docTerms = append(x.docTerms, ids...)
	for _, id := range ids {
		x.docFirst = append(x.docFirst, x.heads[id].first)
	}
	x.termAt = append(x.termAt, uint32(len(x.docTerms)))
	x.live++
	x.totalLen += int64(length)
}

func (x *Index) newTerm(key string) uint32 {
	var id uint32
	if n := len(x.free); n > 0 {
		id, x.free = x.free[n-1], x.free[:n-1]
		x.terms[id], x.heads[id] = postings{key: key}, headOf(key)
	} else {
		id = uint32(len(x.terms))
		x.terms = append(x.terms, postings{key: key})
		x.heads = append(x.heads, headOf(key))
	}
	x.ids[key] = id
	return id
}

// Remove drops an item from the index.
func (x *Index) Remove(seq int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	slot, ok := x.slotOf(seq)
	if !ok || x.seqs[slot] < 0 {
		return
	}
	x.seqs[slot] = -seq
	x.live--
	x.dead++
	x.totalLen -= int64(x.lens[slot])
	for _, id := range x.docTerms[x.termAt[slot]:x.termAt[slot+1]] {
		p := &x.terms[id]
		p.df--
		switch {
		case p.df == 0:
			x.dropTerm(id)
		case len(p.slots) > 2*p.df:
			x.compact(p)
		}
	}
	if x.dead > max(x.live, 1024) {
		x.compactSlots()
	}
}

// compactSlots renumbers the live items' slots from 0, dropping the removed
// ones: a long-running process that keeps re-ingesting changed files would
// otherwise keep a slot for every item it ever indexed.
func (x *Index) compactSlots() {
	renum := make([]uint32, len(x.seqs)) // old slot → new slot
	seqs := make([]int64, 0, x.live)
	lens := make([]uint32, 0, x.live)
	termAt := make([]uint32, 1, x.live+1)
	var docTerms []uint32
	var docFirst []uint8
	for s, seq := range x.seqs {
		if seq <= 0 {
			continue
		}
		renum[s] = uint32(len(seqs))
		seqs = append(seqs, seq)
		lens = append(lens, x.lens[s])
		docTerms = append(docTerms, x.docTerms[x.termAt[s]:x.termAt[s+1]]...)
		docFirst = append(docFirst, x.docFirst[x.termAt[s]:x.termAt[s+1]]...)
		termAt = append(termAt, uint32(len(docTerms)))
	}
	for id := range x.terms {
		p := &x.terms[id]
		x.compact(p)
		for i, s := range p.slots {
			p.slots[i] = renum[s]
		}
	}
	x.seqs, x.lens, x.termAt, x.docTerms, x.docFirst, x.dead = seqs, lens, termAt, docTerms, docFirst, 0
}

// dropTerm forgets a term no live item holds any more.
func (x *Index) dropTerm(id uint32) {
	delete(x.ids, x.terms[id].key)
	x.terms[id], x.heads[id] = postings{}, head{}
	x.free = append(x.free, id)
}

func (x *Index) compact(p *postings) {
	n := 0
	for i, s := range p.slots {
		if x.seqs[s] > 0 {
			p.slots[n], p.tfs[n] = s, p.tfs[i]
			n++
		}
	}
	p.slots, p.tfs = p.slots[:n:n], p.tfs[:n:n]
}

func (x *Index) slotOf(seq int64) (int, bool) {
	lo, hi := 0, len(x.seqs)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if abs64(x.seqs[mid]) < seq {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(x.seqs) && abs64(x.seqs[lo]) == seq
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// EachKey calls fn with every distinct key the live item seq holds and
// reports whether the index holds that item: a ranking can check which
// of a query's keys a candidate holds without reading its text.
func (x *Index) EachKey(seq int64, fn func(key string)) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	slot, ok := x.slotOf(seq)
	if !ok || x.seqs[slot] < 0 {
		return false
	}
	for _, id := range x.docTerms[x.termAt[slot]:x.termAt[slot+1]] {
		fn(x.terms[id].key)
	}
	return true
}

// Len is how many live items the index holds.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

func containsSorted(list []int64, v int64) bool {
	i := sort.Search(len(list), func(i int) bool { return list[i] >= v })
	return i < len(list) && list[i] == v
}

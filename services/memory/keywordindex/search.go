package keywordindex

import (
	"math"
	"math/bits"
	"sync"

	"github.com/openhuman-go/openhuman-go/services/memory/topk"
)

// Term is one query term: its key, as textkeys makes it, and other keys
// that may stand for it (synonyms), each with a weight below 1.
type Term struct {
	Key  string
	Alts []Alt
}

// Alt is a key that may stand for a term's, and how much it counts.
type Alt struct {
	Key    string
	Weight float64
}

// plain makes terms of keys without alternatives.
func plain(keys []string) []Term {
	out := make([]Term, len(keys))
	for i, k := range keys {
		out[i] = Term{Key: k}
	}
	return out
}

// Search ranks the live items with seq <= asOf holding any of keys (made
// by textkeys.Keys) by BM25, best first, and returns up to k of them. allowed, when not nil,
// restricts the ranking to those seqs (ascending).
func (x *Index) Search(keys []string, k int, asOf int64, allowed []int64) []topk.Ranked {
	return x.SearchTerms(plain(keys), k, asOf, allowed, nil)
}

// SearchWithin is Search as if the index held only the items of universe
// (ascending seqs, all <= asOf; allowed, when not nil, a subset of it).
// BM25 weighs terms by statistics of the collection (how many items, their
// average length, how many hold each term); these are universe's here, so
// that no score, and no order, depends on an item outside it.
func (x *Index) SearchWithin(keys []string, k int, asOf int64, allowed, universe []int64) []topk.Ranked {
	if universe == nil {
		return nil // an empty universe, not the whole index
	}
	return x.SearchTerms(plain(keys), k, asOf, allowed, universe)
}

// SearchTerms is Search over terms that may have alternatives, within
// universe when it is not nil (as SearchWithin). An item scores for a term
// the best of what its key and its alternatives give, an alternative
// weighed by its weight and counted as no rarer than the term itself: an
// item holding the term's own word always beats one of the same length
// holding the same number of a synonym's, and holding both adds nothing.
func (x *Index) SearchTerms(terms []Term, k int, asOf int64, allowed, universe []int64) []topk.Ranked {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if k <= 0 {
		return nil
	}
	n, total, ok := x.collection(asOf, universe)
	if !ok {
		return nil
	}
	if universe != nil && allowed == nil {
		allowed = universe
	}
	hits, _ := x.search(terms, k, asOf, allowed, n, total, universe, true)
	return hits
}

// collection is how many items a search weighs terms over, and their
// tokens: the live ones, or those of universe (<= asOf) when it is not nil;
// false when there are none.
func (x *Index) collection(asOf int64, universe []int64) (n, total float64, ok bool) {
	n, total = float64(x.live), float64(x.totalLen)
	if universe != nil {
		n, total = 0, 0
		for _, seq := range universe {
			if s, ok := x.slotOf(seq); ok && x.seqs[s] > 0 && seq <= asOf {
				n++
				total += float64(x.lens[s])
			}
		}
	}
	return n, total, n > 0
}

// search ranks as SearchTerms does, over a collection of n items totalling
// totalLen tokens; a term's document frequency counts the items of
// universe holding it, or all live ones when universe is nil.
//
// With prune set, a query that holds both rare and common terms scores the
// items holding a rare one only, when the common terms together cannot lift
// any other item to the k-th best (pickRare): the same k best, with the
// same scores, summed in the same order, without scoring and ranking every
// item that holds a common word; pruned says whether it did.
func (x *Index) search(terms []Term, k int, asOf int64, allowed []int64, n, totalLen float64, universe []int64, prune bool) (hits []topk.Ranked, pruned bool) {
	sc := scratchPool.Get().(*scratch)
	defer sc.release()
	sc.scores.size(len(x.seqs))
	q := ranking{x: x, sc: sc, asOf: asOf, allowed: allowed, universe: universe, n: n, avgLen: totalLen / n}
	plans, alts := q.plan(terms)
	rest := 0.0
	if rare, outside := pickRare(plans, k, sc); prune && rare > 0 {
		// Score only the items holding a rare term (pickRare); the
		// others' scores are below outside, and taken as lower than
		// the k-th best such item's, which is checked below.
		q.markRare(plans, alts, sc.order[:rare])
		rest = outside
	}
	q.scoreAll(plans, alts)
	hits = sc.hits[:0]
	for _, s := range sc.scores.touched {
		hits = append(hits, topk.Ranked{Seq: x.seqs[s], Score: sc.scores.v[s]})
	}
	sc.hits = hits
	best := topk.Select(hits, k)
	if q.cand != nil && (len(best) < k || best[k-1].Score <= rest) {
		// An item holding common terms only might have made the k best:
		// rank them all.
		sc.cand.reset()
		sc.scores.reset()
		return x.search(terms, k, asOf, allowed, n, totalLen, universe, false)
	}
	return best, q.cand != nil
}

// ranking is one search's reading of the index: the collection it weighs
// terms over, the items it may rank, and, when pruning, the candidates.
type ranking struct {
	x        *Index
	sc       *scratch
	asOf     int64
	allowed  []int64
	universe []int64
	n        float64 // items in the collection
	avgLen   float64 // their mean length in tokens
	cand     *marks  // when not nil, the only slots scored
}

// idf is the key's weight in BM25, and its postings (nil when no item
// holds it).
func (q *ranking) idf(key string) (*postings, float64) {
	df := 0
	var p *postings
	if id, ok := q.x.ids[key]; ok {
		p = &q.x.terms[id]
		df = p.df
		if q.universe != nil {
			df = q.x.docFreqWithin(p, q.universe)
		}
	}
	v := math.Log((q.n - float64(df) + 0.5) / (float64(df) + 0.5))
	if v <= 0 {
		v = 1e-6 // as FTS5 does: a term in most items still counts a little
	}
	if df == 0 {
		p = nil
	}
	return p, v
}

// plan reads each term's postings, weight and alternatives, into the
// scratch's plans and alts.
func (q *ranking) plan(terms []Term) ([]termPlan, []altPlan) {
	plans := q.sc.plans[:0]
	alts := q.sc.alts[:0]
	for _, t := range terms {
		p, termIDF := q.idf(t.Key)
		pl := termPlan{p: p, idf: termIDF, altFrom: len(alts)}
		if p != nil {
			pl.bound = termIDF
			pl.postings = len(p.slots)
		}
		// Alternatives no item holds cost nothing: most words' are not
		// in memory at all.
		for _, a := range t.Alts {
			if _, ok := q.x.ids[a.Key]; !ok || a.Weight <= 0 {
				continue
			}
			pl.grouped = true
			if ap, altIDF := q.idf(a.Key); ap != nil {
				w := a.Weight * min(altIDF, termIDF)
				alts = append(alts, altPlan{p: ap, idf: w})
				pl.bound = max(pl.bound, w)
				pl.postings += len(ap.slots)
			}
		}
		pl.altTo = len(alts)
		// A term's BM25 part is idf·tf·(k1+1)/(tf+k1·norm), and norm > 0:
		// below idf·(k1+1) whatever the item.
		pl.bound *= bm25K1 + 1
		plans = append(plans, pl)
	}
	q.sc.plans, q.sc.alts = plans, alts
	return plans, alts
}

// markRare marks as the only candidates the items holding the terms
// plans[i] for i in rare, or one of their alternatives.
func (q *ranking) markRare(plans []termPlan, alts []altPlan, rare []int) {
	q.cand = &q.sc.cand
	q.cand.size(len(q.x.seqs))
	for _, i := range rare {
		pl := &plans[i]
		if pl.p != nil {
			q.cand.markAll(pl.p.slots)
		}
		for _, a := range alts[pl.altFrom:pl.altTo] {
			q.cand.markAll(a.p.slots)
		}
	}
}

// scoreAll sums each term's BM25 part into the scratch's scores, a term
// with alternatives giving each item the best of them.
func (q *ranking) scoreAll(plans []termPlan, alts []altPlan) {
	scores := &q.sc.scores
	for _, pl := range plans {
		if !pl.grouped {
			if pl.p != nil {
				q.add(pl.p, pl.idf, scores, false)
			}
			continue
		}
		group := &q.sc.group
		group.size(len(q.x.seqs))
		if pl.p != nil {
			q.add(pl.p, pl.idf, group, true)
		}
		for _, a := range alts[pl.altFrom:pl.altTo] {
			q.add(a.p, a.idf, group, true)
		}
		for _, s := range group.touched {
			scores.add(s, group.v[s])
		}
		group.reset()
	}
}

// add scores p's items into into, summing, or keeping the best when best
// is set; with candidates marked, theirs only.
func (q *ranking) add(p *postings, idf float64, into *sums, best bool) {
	// Read once here, not through q at every posting.
	x, cand, asOf, allowed, avgLen := q.x, q.cand, q.asOf, q.allowed, q.avgLen
	for i, s := range p.slots {
		if cand != nil && !cand.has(s) {
			continue
		}
		seq := x.seqs[s]
		if seq <= 0 || seq > asOf || (allowed != nil && !containsSorted(allowed, seq)) {
			continue
		}
		tf := float64(p.tfs[i])
		norm := 1 - bm25B + bm25B*float64(x.lens[s])/avgLen
		v := idf * tf * (bm25K1 + 1) / (tf + bm25K1*norm)
		if !best {
			into.add(s, v)
		} else {
			into.max(s, v)
		}
	}
}

// scratch is a search's working space, reused.
type scratch struct {
	scores sums // slot → BM25 so far
	group  sums // slot → best score of one term and its alternatives
	hits   []topk.Ranked
	plans  []termPlan
	alts   []altPlan
	order  []int     // plans, highest bound first (pickRare)
	suffix []float64 // the bounds of order[i:], summed
	cand   marks     // slots holding a rare term
}

// sums holds a score per slot of the index, dense, with the slots that
// have one: a map's hashing was a third of a search whose words most items
// hold. No score is 0 (a term's weight never is), so 0 means none yet.
type sums struct {
	v       []float64
	touched []uint32
}

func (a *sums) add(s uint32, v float64) {
	if a.v[s] == 0 {
		a.touched = append(a.touched, s)
	}
	a.v[s] += v
}

func (a *sums) max(s uint32, v float64) {
	if v > a.v[s] {
		if a.v[s] == 0 {
			a.touched = append(a.touched, s)
		}
		a.v[s] = v
	}
}

// reset empties a at the cost of the slots it holds.
func (a *sums) reset() {
	for _, s := range a.touched {
		a.v[s] = 0
	}
	a.touched = a.touched[:0]
}

var scratchPool = sync.Pool{New: func() any { return &scratch{} }}

// size makes room for n slots: 8 bytes a slot, 8 MB at a million items,
// kept with the scratch for the searches after.
func (a *sums) size(n int) {
	if len(a.v) < n {
		a.v = make([]float64, n+n/4)
	}
}

// release returns sc to the pool, emptied.
func (sc *scratch) release() {
	sc.scores.reset()
	sc.group.reset()
	sc.cand.reset()
	scratchPool.Put(sc)
}

// Matching returns the seqs (<= asOf) of the live items holding any of
// keys, ascending. Slots are in seq order, so marking them in a bitset and
// reading it back gives the seqs sorted and without duplicates, with no
// map or sort: a word in most of a million items makes a million of them.
func (x *Index) Matching(keys []string, asOf int64) []int64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	marked := make([]uint64, (len(x.seqs)+63)/64)
	n := 0
	for _, key := range keys {
		id, ok := x.ids[key]
		if !ok {
			continue
		}
		for _, s := range x.terms[id].slots {
			if seq := x.seqs[s]; seq > 0 && seq <= asOf && marked[s/64]&(1<<(s%64)) == 0 {
				marked[s/64] |= 1 << (s % 64)
				n++
			}
		}
	}
	out := make([]int64, 0, n)
	for w, word := range marked {
		for ; word != 0; word &= word - 1 {
			out = append(out, x.seqs[w*64+bits.TrailingZeros64(word)])
		}
	}
	return out
}

// DocFreq is how many live items hold key.
func (x *Index) DocFreq(key string) int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if id, ok := x.ids[key]; ok {
		return x.terms[id].df
	}
	return 0
}

// DocFreqWithin is how many of the items of universe (ascending seqs) hold
// key.
func (x *Index) DocFreqWithin(key string, universe []int64) int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if id, ok := x.ids[key]; ok {
		return x.docFreqWithin(&x.terms[id], universe)
	}
	return 0
}

func (x *Index) docFreqWithin(p *postings, universe []int64) int {
	df := 0
	for _, s := range p.slots {
		if seq := x.seqs[s]; seq > 0 && containsSorted(universe, seq) {
			df++
		}
	}
	return df
}

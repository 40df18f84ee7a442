package memory

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/openhuman-go/openhuman-go/services/memory/keywordindex"
	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
)

// Hybrid ranking is done in two steps. Fusion adds up what each leg
// (keyword BM25, vector cosine, and any leg added later, such as one over
// an expanded query) said of a candidate, each leg's scores divided by its
// best so that they are comparable, and weighed by what the leg is worth.
// Ranks alone (reciprocal rank fusion, which this replaced) let a leg that
// is noise push the other's best hits down as far as a leg that knows. Then
// the best candidates are reranked by what a person checks first: how much
// of the question's word weight the note holds (typos forgiven), and,
// between a fact and the correction learned after it, the correction.

// leg is one ranking that fusion reads, best first.
type leg struct {
	hits   []Ranked
	weight float64
	vector bool // the hits are cosines (kept on fused.vector)
}

// fusionWeighted is an embedder that says how much its vectors are worth
// in fusion against BM25's 1. An embedder that does not is taken as a
// semantic model and weighs 1.
type fusionWeighted interface {
	FusionWeight() float64
}

// hashVectorWeight is the hash embedder's weight: its vectors catch typos
// and word forms, which the rerank's term match also forgives, and
// otherwise match on shared trigrams of unrelated words. Set on the design
// half of the evaluation (testdata/eval).
const hashVectorWeight = 0.3

// FusionWeight is low: the hash embedder is a spelling helper, not a
// model of meaning.
func (h *HashEmbedder) FusionWeight() float64 { return hashVectorWeight }

// gloveVectorWeight is the GloVe embedder's weight, set on the design
// half of the evaluation.
var gloveVectorWeight = 0.5

// FusionWeight is between the hash embedder's and a model's: its vectors
// know words' meanings, not sentences'.
func (g *GloveEmbedder) FusionWeight() float64 { return gloveVectorWeight }

func (s *Service) vectorWeight() float64 {
	if w, ok := s.embedder.(fusionWeighted); ok {
		return w.FusionWeight()
	}
	return 1
}

// fuseLegs adds each leg's normalised, weighed scores into out (through
// get, which finds or adds a candidate).
func fuseLegs(legs []leg, get func(seq int64) *fused) {
	for _, l := range legs {
		if len(l.hits) == 0 {
			continue
		}
		best := 0.0
		for _, h := range l.hits {
			best = max(best, h.Score)
		}
		if best <= 0 {
			continue
		}
		for _, h := range l.hits {
			x := get(h.Seq)
			if l.vector {
				x.vector, x.inVec = h.Score, true
			} else {
				x.keyword = h.Score
			}
			x.score += l.weight * h.Score / best
		}
	}
}

// Rerank weights, set on the design half of the evaluation.
const (
	// rerankDepth is how many of the best fused candidates are reranked by
	// the words they hold; rerankVectorExtra more come from the vector
	// leg's best when fusion left them further down (a misspelt question
	// whose keyword leg found only its common words). The keyword index
	// tells which words a candidate holds, so this reads no text.
	rerankDepth       = 20
	rerankVectorExtra = 5
	// rerankRead is how many of the reranked best are weighed for
	// corrections: about a page.
	rerankRead = 12

	rerankFused      = 0.3 // the fused score, relative to the best candidate's
	rerankCoverage   = 1.0 // share of the question's word weight the note holds
	rerankCorrection = 0.1 // a correction, times its coverage
	rerankCurrent    = 0.3 // a correction when the question asks what holds now

	// typoMaxDocFreq: a question word memory holds in fewer items than
	// this may be a typo of a word a candidate holds.
	typoMaxDocFreq = 10
)

// currentCues are question words asking for what holds now: a correction
// answers those before the fact it corrects.
var currentCues = map[string]bool{"now": true, "current": true, "currently": true, "still": true,
	"anymore": true, "latest": true, "nowadays": true, "today": true, "new": true, "changed": true}

// rerank reorders the first candidates of order (fused, best first) as the
// comment atop this file says, in place, and gives every candidate a score
// that falls with its place. vecBest are the vector leg's best seqs; idx
// is the keyword index as the search caught it up.
func (s *Service) rerank(idx keywordIndex, m Marks, v view, query string, kwTerms []keywordindex.Term, order []fused, vecBest []Ranked) ([]fused, error) {
	terms := lexicon.Terms(query)
	if len(order) == 0 || len(terms) == 0 {
		return order, nil
	}
	n := min(rerankDepth, len(order))
	// Bring the vector leg's best up to the candidates.
	for _, r := range vecBest[:min(rerankVectorExtra, len(vecBest))] {
		if i := slices.IndexFunc(order, func(f fused) bool { return f.seq == r.Seq }); i >= n {
			x := order[i]
			copy(order[n+1:i+1], order[n:i])
			order[n] = x
			n++
		}
	}
	cands := order[:n]
	own := termKeys(terms, kwTerms)
	weights := termWeights(idx, m, own, v.universe)
	keys := heldKeys(own, kwTerms)
	best := 0.0
	seqs := make([]int64, len(cands))
	for i, c := range cands {
		best = max(best, c.score)
		seqs[i] = c.seq
	}
	cover := coverages(idx, seqs, keys, weights)
	for i := range cands {
		c := &cands[i]
		c.coverage = cover[i]
		c.score = rerankFused*c.score/best + rerankCoverage*c.coverage
	}
	byScore(cands)
	// Among the best few, a correction outranks what it corrects.
	top := cands[:min(rerankRead, len(cands))]
	current := false
	for _, w := range lexicon.Words(query) {
		current = current || currentCues[w]
	}
	for i := range top {
		if s.isCorrection(top[i].seq) {
			// The score is mostly coverage: a correction about something
			// else gains little.
			boost := rerankCorrection
			if current {
				boost += rerankCurrent
			}
			top[i].score += boost * min(top[i].score, 1)
		}
	}
	byScore(top)
	// The rest keep their fused order, scored below the last candidate.
	floor := cands[len(cands)-1].score
	rest := order[n:]
	if len(rest) > 0 && rest[0].score > 0 {
		first := rest[0].score
		for i := range rest {
			rest[i].score = floor * 0.99 * rest[i].score / first
		}
	}
	return order, nil
}

// byScore sorts candidates best first, ties to the newest.
func byScore(fs []fused) {
	slices.SortStableFunc(fs, func(a, b fused) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(b.seq, a.seq)
	})
}

// termKey is a key that stands for a question word (terms[term]) in a
// note: the word's own, or, weighing less, a WordNet relative's.
type termKey struct {
	key    string
	term   int
	weight float64
}

// heldKeys lists the keys that stand for terms: each word's own (a typo
// of it forgiven), and the relatives the keyword leg looked for (kwTerms,
// made by keywordTerms, one per word when they were expanded).
func heldKeys(own [][]string, kwTerms []keywordindex.Term) []termKey {
	var keys []termKey
	for i, ks := range own {
		for _, k := range ks {
			keys = append(keys, termKey{key: k, term: i, weight: 1})
		}
	}
	if len(kwTerms) != len(own) {
		return keys // not expanded
	}
	for i, t := range kwTerms {
		for _, a := range t.Alts {
			keys = append(keys, termKey{key: a.Key, term: i, weight: a.Weight})
		}
	}
	return keys
}

// coverages is, for each item of seqs, the share of the terms' weight it
// holds: a term counts fully when the item holds its own word (up to a
// typo), for its weight when it holds a relative only.
func coverages(idx keywordIndex, seqs []int64, keys []termKey, weights []float64) []float64 {
	nt := len(weights)
	held := make([]float64, len(seqs)*nt) // by seq, then term: the best key's weight
	var masks []uint64
	// A question word's own key is forgiven a typo when memory holds it in
	// few items: a word memory holds often is taken as spelt right, and
	// its near misses are other words (set on the design half). Relatives'
	// keys must match exactly.
	for start := 0; start < len(keys); start += 64 {
		chunk := keys[start:min(start+64, len(keys))]
		strs := make([]string, len(chunk))
		var forgive uint64
		for j, k := range chunk {
			strs[j] = k.key
			if k.weight == 1 && idx.DocFreq(k.key) < typoMaxDocFreq {
				forgive |= 1 << j
			}
		}
		masks = idx.Held(seqs, strs, forgive, lexicon.Near, masks)
		for i, m := range masks {
			for ; m != 0; m &= m - 1 {
				k := chunk[bits.TrailingZeros64(m)]
				held[i*nt+k.term] = max(held[i*nt+k.term], k.weight)
			}
		}
	}
	var total float64
	for _, w := range weights {
		total += w
	}
	out := make([]float64, len(seqs))
	if total == 0 {
		return out
	}
	for i := range seqs {
		var got float64
		for j, w := range weights {
			got += held[i*nt+j] * w
		}
		out[i] = got / total
	}
	return out
}

package retrieval

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/openhuman-go/openhuman-go/services/memory/keywordindex"
	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
)

// rerankRead is how many of the reranked
// best are weighed for corrections: about a page. typoMaxDocFreq: a
// question word memory holds in fewer items than this may be a typo of a
// word a candidate holds.
const (
	rerankRead     = 12
	typoMaxDocFreq = 10
)

// rerank is the second phase: it reorders the first Profile.Depth
// candidates of order (fused, best first) by the profile's features, in
// place, and gives every candidate a score that falls with its place.
// idx is the keyword index as the
// search caught it up, kwTerms what the keyword leg looked for.
func (e *Engine) rerank(ctx context.Context, idx *keywordindex.Index, q Query, kwTerms []keywordindex.Term, order []Candidate) []Candidate {
	p := e.profile
	terms := lexicon.Terms(q.Text)
	if len(order) == 0 || len(terms) == 0 {
		return order
	}
	n := min(p.Depth, len(order))
	if p.On(SwitchAnswers) {
		order, n = e.withAnswers(q, order, n)
	}
	cands := order[:n]
	own := termKeys(terms, kwTerms)
	weights := termWeights(idx, q.Marks, terms, own, q.Universe)
	keys := heldKeys(own, kwTerms, terms)
	best := 0.0
	seqs := make([]int64, len(cands))
	for i, c := range cands {
		best = max(best, c.Score)
		seqs[i] = c.Seq
	}
	cues := cueBits(terms)
	cover, inContext, holds := e.coverages(idx, seqs, own, keys, weights, cues)
	for i := range cands {
		c := &cands[i]
		c.Coverage, c.InContext = cover[i], inContext[i]
		// Divided last, as the score always was: explain reports Fused
		// beside it, and a tie must not turn on the last bit.
		c.Fused, c.Reranked = c.Score/best, true
		c.Score = p.Weight(FeatureFused)*c.Score/best + p.Weight(FeatureCoverage)*inContext[i]
		if !e.isDocument(c.Seq) {
			// The user's own holding of the question: a note that shares
			// nothing with it gains nothing.
			c.Learning = inContext[i]
			c.Score += p.Weight(FeatureLearning) * c.Learning
		}
	}
	e.crossEncode(ctx, q.Text, cands)
	byScore(cands)
	e.corrections(cands[:min(rerankRead, len(cands))], q.Text, terms, holds[:len(cands)], seqs)
	// The rest keep their fused order, scored below the last candidate.
	floor := cands[len(cands)-1].Score
	rest := order[n:]
	if len(rest) > 0 && rest[0].Score > 0 {
		first := rest[0].Score
		for i := range rest {
			rest[i].Score = floor * 0.99 * rest[i].Score / first
		}
	}
	return order
}

// corrections lifts, among the best few (top, reranked best first), a
// correction that holds every name the question asks about, by its score
// (mostly its coverage: a correction about something else gains little)
// times the profile's correction weights; then sorts them again. holds
// are the question words each candidate of seqs holds.
func (e *Engine) corrections(top []Candidate, question string, terms []string, holds []uint64, seqs []int64) {
	p := e.profile
	heldBy := make(map[int64]uint64, len(seqs))
	for i, seq := range seqs {
		heldBy[seq] = holds[i]
	}
	names, _ := nameTerms(question, terms)
	now := asksNow(lexicon.Words(question))
	for i := range top {
		c := &top[i]
		if !e.isCorrection(c.Seq) || heldBy[c.Seq]&names != names {
			continue
		}
		c.Correction = min(c.Score, 1)
		if now {
			c.CorrectionNow = c.Correction
		}
		c.Score += p.Weight(FeatureCorrection)*c.Correction + p.Weight(FeatureCorrectionNow)*c.CorrectionNow
	}
	byScore(top)
}

// nameTerms are the bits of the terms (the question's, lexicon.Terms)
// that name someone or something the question asks about (lexicon.Names),
// and apart those naming a day or a month (times), a month's day number
// with it ("June 5", "5 June").
func nameTerms(question string, terms []string) (names, times uint64) {
	for _, n := range lexicon.Names(question) {
		if k := slices.Index(terms, n); k >= 0 && k < 64 {
			if lexicon.TimeWord(n) {
				times |= 1 << k
			} else {
				names |= 1 << k
			}
		}
	}
	if !slices.ContainsFunc(terms, monthDay) {
		return names, times // the question's words are read again only for a day
	}
	words := lexicon.Words(question)
	for i, w := range words {
		if !monthDay(w) || !(i > 0 && lexicon.TimeWord(words[i-1]) || i+1 < len(words) && lexicon.TimeWord(words[i+1])) {
			continue
		}
		if k := slices.Index(terms, w); k >= 0 && k < 64 {
			times |= 1 << k
		}
	}
	return names, times
}

// monthDay reports whether w is a day of a month: 1 to 31, or "5th".
func monthDay(w string) bool {
	w = strings.TrimRight(w, "stndrh")
	n, err := strconv.Atoi(w)
	return err == nil && n >= 1 && n <= 31
}

// byScore sorts candidates best first, ties to the newest.
func byScore(cs []Candidate) {
	slices.SortStableFunc(cs, func(a, b Candidate) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(b.Seq, a.Seq)
	})
}

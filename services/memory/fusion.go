package memory

import (
	"context"
	"slices"
)

// Hybrid ranking is done in two steps. Fusion adds up what each leg
// (keyword BM25, vector cosine, and any leg added later, such as one over
// an expanded query) said of a candidate, each leg's scores divided by its
// best so that they are comparable, and weighed by what the leg is worth.
// Ranks alone (reciprocal rank fusion, which this replaced) let a leg that
// is noise push the other's best hits down as far as a leg that knows. Then
// the best candidates are read and reranked by what a person checks first:
// how much of the question's word weight the note holds (typos forgiven),
// whether its words stand together as in the question, and, between a fact
// and the correction learned after it, the correction.

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
	// rerankDepth is how many of the best fused candidates are read and
	// reranked; rerankVectorExtra more come from the vector leg's best
	// when fusion left them further down (a misspelt question whose
	// keyword leg found only its common words).
	rerankDepth       = 30
	rerankVectorExtra = 5

	rerankFused       = 0.3  // the fused score, relative to the best candidate's
	rerankCoverage    = 1.0  // share of the question's word weight the note holds
	rerankProximity   = 0.2  // share of the question's word pairs that stand together
	rerankCorrection  = 0.1  // a correction, times its coverage
	rerankCurrent     = 0.3  // a correction when the question asks what holds now
	rerankProximityAt = 3    // words apart that still count as together
	rerankMinCoverage = 1e-9 // below it a candidate keeps its fused place
)

// currentCues are question words asking for what holds now: a correction
// answers those before the fact it corrects.
var currentCues = map[string]bool{"now": true, "current": true, "currently": true, "still": true,
	"anymore": true, "latest": true, "nowadays": true, "today": true, "new": true, "changed": true}

// rerank reorders the first candidates of order (fused, best first) as the
// package comment says, in place, and gives every candidate a score that
// falls with its place. vecBest are the vector leg's best seqs.
func (s *Service) rerank(ctx context.Context, m Marks, v view, query string, order []fused, vecBest []Ranked) ([]fused, error) {
	terms := Terms(query)
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
	items, err := s.itemsOf(ctx, cands)
	if err != nil {
		return nil, err
	}
	weights, err := s.termWeights(ctx, m, terms, v.universe)
	if err != nil {
		return nil, err
	}
	current := false
	for _, w := range words(query) {
		current = current || currentCues[w]
	}
	stems := make([]string, len(terms))
	for i, t := range terms {
		stems[i] = stem(t)
	}
	best := 0.0
	for _, c := range cands {
		best = max(best, c.score)
	}
	for i := range cands {
		c := &cands[i]
		it, ok := items[c.seq]
		if !ok {
			continue
		}
		cov, prox := matchTerms(terms, stems, weights, it.Text)
		if cov < rerankMinCoverage && !c.inVec {
			c.score = rerankFused * c.score / best
			continue
		}
		score := rerankFused*c.score/best + rerankCoverage*cov + rerankProximity*prox
		if it.LearningKind == "correction" {
			score += rerankCorrection * cov
			if current {
				score += rerankCurrent * cov
			}
		}
		c.score = score
	}
	slices.SortStableFunc(cands, func(a, b fused) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		case a.seq > b.seq:
			return -1
		case a.seq < b.seq:
			return 1
		}
		return 0
	})
	// The rest keep their fused order, scored below the last candidate.
	floor := cands[len(cands)-1].score
	rest := order[n:]
	if len(rest) > 0 && rest[0].score > 0 {
		top := rest[0].score
		for i := range rest {
			rest[i].score = floor * 0.99 * rest[i].score / top
		}
	}
	return order, nil
}

// matchTerms measures how well text answers terms (their stems given):
// the share of the terms' weight it holds, a term counting as held when
// a word of text has its stem up to a typo, and the share of neighbouring
// term pairs of the question that stand within rerankProximityAt words of
// each other in text.
func matchTerms(terms, stems []string, weights map[string]float64, text string) (coverage, proximity float64) {
	ws := words(text)
	pos := make([]int, len(terms)) // first position of each term in text, -1 when absent
	for i := range pos {
		pos[i] = -1
	}
	for p, w := range ws {
		if stopwords[w] {
			continue
		}
		sw := stem(w)
		// A word written apart or hyphenated ("on-call") is also the
		// two joined ("oncall").
		joined := ""
		if p+1 < len(ws) {
			joined = stem(w + ws[p+1])
		}
		for i, st := range stems {
			if pos[i] < 0 && (near(st, sw) || joined != "" && near(st, joined)) {
				pos[i] = p
			}
		}
	}
	var total, held float64
	for i, t := range terms {
		total += weights[t]
		if pos[i] >= 0 {
			held += weights[t]
		}
	}
	if total > 0 {
		coverage = held / total
	}
	pairs, close := 0, 0
	for i := 1; i < len(terms); i++ {
		pairs++
		if pos[i] >= 0 && pos[i-1] >= 0 && abs(pos[i]-pos[i-1]) <= rerankProximityAt {
			close++
		}
	}
	if pairs > 0 {
		proximity = float64(close) / float64(pairs)
	}
	return coverage, proximity
}

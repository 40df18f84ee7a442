package retrieval

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
	vector bool // the hits are cosines (kept on Candidate.Vector)
}

// fuseLegs adds each leg's normalised, weighed scores into out (through
// get, which finds or adds a candidate).
func fuseLegs(legs []leg, get func(seq int64) *Candidate) {
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
				x.Vector, x.InVector = h.Score, true
			} else {
				x.Keyword = h.Score
			}
			x.Score += l.weight * h.Score / best
		}
	}
}

package retrieval

import (
	"context"
	"math"
)

// crossEncode adds the cross-encoder's relevance to the candidates'
// scores, when one is configured and loaded; until it is (it answers
// UNAVAILABLE) and when it fails, they rank without it.
func (e *Engine) crossEncode(ctx context.Context, query string, cands []Candidate) {
	if e.opts.Reranker == nil || e.opts.Texts == nil || len(cands) == 0 {
		return
	}
	seqs := make([]int64, len(cands))
	for i, c := range cands {
		seqs[i] = c.Seq
	}
	texts, err := e.opts.Texts(ctx, seqs)
	if err != nil {
		return
	}
	passages := make([]string, len(seqs))
	for i, s := range seqs {
		passages[i] = texts[s]
	}
	logits, err := e.opts.Reranker.Rerank(ctx, query, passages)
	if err != nil || len(logits) != len(cands) {
		return
	}
	for i, l := range logits {
		cands[i].CrossEncoder = 1 / (1 + math.Exp(-l))
		cands[i].Score += e.profile.Weight(FeatureCrossEncoder) * cands[i].CrossEncoder
	}
}

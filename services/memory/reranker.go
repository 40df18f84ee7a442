package memory

import "context"

// Reranker scores passages against a query for ranking's second phase
// (the cross-encoder, minilm.Reranker): one relevance score per passage,
// in passages' order, higher more relevant; scores compare within one
// call only. It returns *contract.Error values: UNAVAILABLE while its
// model is not ready (fetched, failed or refused), and the phase is then
// skipped; ENGINE when the model cannot score a pair.
type Reranker interface {
	Rerank(ctx context.Context, query string, passages []string) ([]float64, error)
}

// texts are the quotable texts of the items of seqs, for the cross-encoder.
func (s *Service) texts(ctx context.Context, seqs []int64) (map[int64]string, error) {
	items, err := s.items(ctx, seqs)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]string, len(items))
	for seq, it := range items {
		out[seq] = quotable(it)
	}
	return out, nil
}

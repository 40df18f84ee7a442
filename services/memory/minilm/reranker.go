package minilm

import (
	"context"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/bert"
)

// rerankerMaxTokens is what the cross-encoder reads of a query and a
// passage together: its tokenizer's limit.
const rerankerMaxTokens = 512

// Reranker is the cross-encoder: a relevance score for a query and each
// passage, higher more relevant (a logit, not a probability).
type Reranker struct {
	enc *bert.Encoder
}

// Score scores each passage against query, stopping when ctx ends.
func (r *Reranker) Score(ctx context.Context, query string, passages []string) ([]float32, error) {
	out := make([]float32, len(passages))
	for i, p := range passages {
		if ctx.Err() != nil {
			return nil, contract.Errorf(contract.CodeUnavailable, "reranking stopped: %v", ctx.Err())
		}
		s, err := r.enc.Score(query, p)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// OpenReranker returns the cross-encoder when it is on disk and passes its
// self-check, else nil, and then (unless models are off) fetches it in the
// background for the next start, as OpenEmbedder does.
func OpenReranker(ctx context.Context, o Options) (*Reranker, <-chan error) {
	if o.Off {
		return nil, nil
	}
	repo, figures := o.repoAndFigures(RerankerRepo, bert.RerankerFigures)
	enc, _, fetching := open(ctx, o, repo, rerankerMaxTokens, func(e *bert.Encoder) error { return e.CheckReranker(figures) }, nil)
	if enc == nil {
		return nil, fetching
	}
	return &Reranker{enc: enc}, nil
}

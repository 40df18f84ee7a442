package minilm

import (
	"context"
	"sync/atomic"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/bert"
)

// rerankerMaxTokens is what the cross-encoder reads of a query and a
// passage together: its tokenizer's limit.
const rerankerMaxTokens = 512

// Reranker is the cross-encoder: a relevance score for a query and each
// passage, higher more relevant (a logit, not a probability). Until its
// model is on disk and self-checked it answers UNAVAILABLE, and ranking
// goes without it; unlike the embedder it has no vector space to keep,
// so it is used from the moment its fetch is checked.
type Reranker struct {
	enc   atomic.Pointer[bert.Encoder]
	repo  string
	state *Tracker
}

var _ memory.Reranker = (*Reranker)(nil)

// Rerank scores each passage against query, in passages' order, stopping
// when ctx ends. UNAVAILABLE while the model is not ready.
func (r *Reranker) Rerank(ctx context.Context, query string, passages []string) ([]float64, error) {
	enc := r.enc.Load()
	if enc == nil {
		return nil, contract.Errorf(contract.CodeUnavailable, "the reranker %s is not ready: %s", r.repo, r.notReady())
	}
	out := make([]float64, len(passages))
	for i, p := range passages {
		if ctx.Err() != nil {
			return nil, contract.Errorf(contract.CodeUnavailable, "reranking stopped: %v", ctx.Err())
		}
		s, err := enc.Score(query, p)
		if err != nil {
			return nil, err
		}
		out[i] = float64(s)
	}
	return out, nil
}

// notReady says why, from the tracker's state.
func (r *Reranker) notReady() string {
	if s := r.state.State(); s != nil {
		return s.State
	}
	return "not loaded"
}

// Ready reports whether Rerank scores.
func (r *Reranker) Ready() bool { return r.enc.Load() != nil }

// State is how the reranker's model fares, as the embedder's tracker
// says it for the embedder.
func (r *Reranker) State() *contract.ModelState { return r.state.State() }

// OpenReranker returns the cross-encoder at once, nil when models are
// off. It answers UNAVAILABLE until its model is loaded and self-checked
// in the background: from disk, or once a fetch (ending with ctx) brought
// it. The channel says how that ended; a refused model stays unavailable.
func OpenReranker(ctx context.Context, o Options) (*Reranker, <-chan error) {
	if o.Off {
		return nil, nil
	}
	repo, figures := o.rerankerRepo()
	r := &Reranker{repo: repo.Name, state: o.RerankerTracker}
	if r.state == nil {
		r.state = NewTracker()
	}
	r.state.mu.Lock()
	r.state.reranker = true
	r.state.mu.Unlock()
	check := func(e *bert.Encoder) error { return e.CheckReranker(figures) }
	done := make(chan error, 1)
	go func() { done <- r.open(ctx, o, check) }()
	return r, done
}

// open loads the model from disk, or fetches it first.
func (r *Reranker) open(ctx context.Context, o Options, check func(*bert.Encoder) error) error {
	repo, _ := o.rerankerRepo()
	enc, _, fetching := open(ctx, o, repo, rerankerMaxTokens, check, r.state)
	if enc != nil {
		r.enc.Store(enc)
		return nil
	}
	if fetching == nil { // refused, or a test's hub is not local
		return contract.Errorf(contract.CodeUnavailable, "the reranker %s is not loaded: %s", repo.Name, r.notReady())
	}
	if err := <-fetching; err != nil {
		return err
	}
	return r.load(o, check)
}

// load reads the fetched model, checks it and puts it to use.
func (r *Reranker) load(o Options, check func(*bert.Encoder) error) error {
	repo, _ := o.rerankerRepo()
	enc, _, err := loadFetched(o, repo, rerankerMaxTokens, check, r.state)
	if err != nil {
		return err
	}
	r.enc.Store(enc)
	return nil
}

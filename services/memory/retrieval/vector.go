package retrieval

import (
	"context"
	"sync"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/vectorindex"
)

// vectorState is the in-memory index of the active model's vectors and how
// far it has read the store. The store holds the vectors; the index is
// rebuilt from it at start and follows its changes before every search, so
// writes by other processes on the same file are seen too.
type vectorState struct {
	mu               sync.Mutex
	index            *vectorindex.Index // nil while no vector exists
	addMark, delMark int64
}

// syncVectors brings the vector index up to date with the store as of m
// and returns it (nil while no vector exists).
func (e *Engine) syncVectors(ctx context.Context, m Marks) (*vectorindex.Index, error) {
	st := &e.vectors
	st.mu.Lock()
	defer st.mu.Unlock()
	if m.Vectors <= st.addMark && m.Deletions <= st.delMark {
		return st.index, nil
	}
	add := func(seq int64, v []float32) {
		if st.index == nil {
			st.index = vectorindex.New(len(v))
		}
		st.index.Put(seq, v)
	}
	remove := func(seq int64) {
		if st.index != nil {
			st.index.Remove(seq)
		}
		e.removed(seq)
	}
	a, d, err := e.src.VectorChanges(ctx, e.embedder.Model(), st.addMark, st.delMark, add, remove)
	if err != nil {
		return nil, err
	}
	st.addMark, st.delMark = a, d
	return st.index, nil
}

// vectorLeg ranks by cosine similarity to the query's embedding. With a
// filter (Allowed not nil) the search is exact over those.
func (e *Engine) vectorLeg(ctx context.Context, q Query) ([]Ranked, error) {
	idx, err := e.syncVectors(ctx, q.Marks)
	if err != nil {
		return nil, err
	}
	if idx == nil || idx.Len() == 0 {
		return nil, contract.Errorf(contract.CodeUnavailable, "no item has a vector of model %s yet; they are being computed", e.embedder.Model())
	}
	qv, err := e.embedder.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, err
	}
	hits := idx.Search(qv[0], q.Depth+16, q.Allowed)
	out := hits[:0]
	for _, h := range hits {
		if h.Seq <= q.AsOf && h.Score > 0 {
			out = append(out, h)
		}
	}
	if len(out) > q.Depth {
		out = out[:q.Depth]
	}
	return out, nil
}

// fusionWeighted is an embedder that says how much its vectors are worth
// in fusion against BM25's 1. An embedder that does not is taken as a
// semantic model and weighs 1, as does one that says 0.
type fusionWeighted interface {
	FusionWeight() float64
}

func (e *Engine) vectorWeight() float64 {
	if w, ok := e.embedder.(fusionWeighted); ok && w.FusionWeight() > 0 {
		return w.FusionWeight()
	}
	return 1
}

package memory

import (
	"context"
	"sync"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/vectorindex"
	"github.com/openhuman-go/openhuman-go/services/memory/wordnet"
)

// vectorIndex is what the service asks of its vector search: to follow the
// active model's vectors in the store, and to rank them by closeness to a
// query's.
type vectorIndex interface {
	Put(seq int64, v []float32)
	Remove(seq int64)
	Len() int
	Search(q []float32, k int, allowed []int64) []Ranked
}

var _ vectorIndex = (*vectorindex.Index)(nil)

// vectorState is the in-memory index of the active model's vectors and how
// far it has read the store. SQLite holds the vectors; the index is
// rebuilt from it at start and follows its changes before every search, so
// writes by other processes on the same file are seen too.
type vectorState struct {
	mu               sync.Mutex
	index            vectorIndex
	addMark, delMark int64
	inlineTimeout    time.Duration
	wake             chan struct{}

	// embedMu serializes embedding; every item up to embeddedThrough has a
	// vector of the active model, so the search for items without one
	// starts after it instead of at the first item.
	embedMu         sync.Mutex
	embeddedThrough int64
}

func newVectorState(inline time.Duration) *vectorState {
	return &vectorState{inlineTimeout: inline, wake: make(chan struct{}, 1)}
}

// syncIndex brings the index up to date with the store as of m and returns
// it (nil while no vector exists).
func (s *Service) syncIndex(ctx context.Context, m Marks) (vectorIndex, error) {
	st := s.vectors
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
		s.cache.drop(seq)
	}
	a, d, err := s.store.VectorChanges(ctx, s.embedder.Model(), st.addMark, st.delMark, add, remove)
	if err != nil {
		return nil, err
	}
	st.addMark, st.delMark = a, d
	return st.index, nil
}

// EmbedNew embeds what the store holds without a vector, within a short
// deadline, and leaves the rest to the background worker: a slow or down
// embedder never blocks a write. Writes call it; so does whatever else
// writes to the store (a replica's follower, applying others' writes).
func (s *Service) EmbedNew(ctx context.Context) {
	if s.off != "" {
		return
	}
	s.embedNew(ctx)
}

func (s *Service) embedNew(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.vectors.inlineTimeout)
	defer cancel()
	for {
		n, err := s.embedBatch(ctx, 64)
		if err != nil {
			s.log.Debug("embedding deferred to the background", "model", s.embedder.Model(), "err", err)
			select {
			case s.vectors.wake <- struct{}{}:
			default:
			}
			return
		}
		if n == 0 {
			return
		}
	}
}

// embedBatch embeds up to n items that lack a vector of the active model and
// reports how many it stored.
func (s *Service) embedBatch(ctx context.Context, n int) (int, error) {
	v := s.vectors
	v.embedMu.Lock()
	defer v.embedMu.Unlock()
	items, err := s.store.Unembedded(ctx, s.embedder.Model(), v.embeddedThrough, n)
	if err != nil || len(items) == 0 {
		return 0, err
	}
	texts := make([]string, len(items))
	for i, it := range items {
		texts[i] = it.Text
	}
	vecs, err := s.embedder.Embed(ctx, texts)
	if err != nil {
		return 0, err
	}
	if len(vecs) != len(items) {
		return 0, contract.Errorf(contract.CodeEngine, "the embedder returned %d vectors for %d texts", len(vecs), len(items))
	}
	out := make([]Embedded, len(items))
	for i, it := range items {
		out[i] = Embedded{Seq: it.Seq, Vector: vecs[i]}
	}
	if err := s.store.PutVectors(ctx, s.embedder.Model(), out); err != nil {
		return 0, err
	}
	v.embeddedThrough = items[len(items)-1].Seq
	return len(out), nil
}

// Run embeds, in the background, every item without a vector of the
// active model: items whose inline embedding failed, and all of them after
// the model changed. Failures back off up to a minute; searches keep
// working on the keyword leg meanwhile. Run returns when ctx ends.
func (s *Service) Run(ctx context.Context) {
	if s.off != "" {
		return
	}
	s.warm(ctx)
	const batch = 64
	backoff := time.Second
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	done, cleaned := 0, false
	for {
		n, err := s.embedBatch(ctx, batch)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			s.log.Warn("embedding failed; retrying", "model", s.embedder.Model(), "in", backoff, "err", contract.ErrorMessage(err))
			if !sleep(ctx, backoff) {
				return
			}
			backoff = min(2*backoff, time.Minute)
			continue
		case n > 0:
			backoff = time.Second
			done += n
			if done%1024 < n {
				s.log.Info("embedding memory items", "model", s.embedder.Model(), "embedded", done)
			}
			continue
		}
		if done > 0 {
			s.log.Info("every memory item has a vector", "model", s.embedder.Model(), "embedded_now", done)
			done = 0
		}
		if !cleaned {
			if dropped, err := s.store.DropVectorsExcept(ctx, s.embedder.Model()); err == nil {
				cleaned = true
				if dropped > 0 {
					s.log.Info("dropped vectors of previous models", "count", dropped, "model", s.embedder.Model())
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-s.vectors.wake:
		case <-tick.C:
		}
	}
}

// warm builds the in-memory indexes now, so that the first search does not
// wait for them (they take seconds at a million items).
func (s *Service) warm(ctx context.Context) {
	start := time.Now()
	wordnet.Load()
	m, err := s.store.Marks(ctx)
	if err == nil {
		_, err = s.syncKeywords(ctx, m)
	}
	if err == nil {
		_, err = s.syncIndex(ctx, m)
	}
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("building the search indexes; the first search will retry", "err", contract.ErrorMessage(err))
		}
		return
	}
	s.log.Debug("search indexes built", "items", m.Items, "took", time.Since(start))
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

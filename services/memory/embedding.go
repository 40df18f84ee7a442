package memory

import (
	"context"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Embedder turns texts into vectors. Implementations return one unit-length
// vector per text, all of Dim() components, and *contract.Error values:
// UNAVAILABLE when the embedding service cannot be reached (the caller
// retries later), ENGINE when it answers nonsense.
type Embedder interface {
	// Model names the vector space. Vectors of different models never mix.
	Model() string
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// vectorStore is the port of embedding's bookkeeping: which items lack a
// vector of the active model, and the vectors computed for them.
type vectorStore interface {
	// PutVectors stores vectors of model; vectors of items deleted
	// meanwhile are dropped.
	PutVectors(ctx context.Context, model string, vs []Embedded) error
	// Unembedded returns up to limit items with seq > after that have no
	// vector of model, oldest first. Only their Seq and Text are read:
	// that is all embedding needs.
	Unembedded(ctx context.Context, model string, after int64, limit int) ([]Item, error)
	// CountUnembedded counts the items with seq > after that have no
	// vector of model.
	CountUnembedded(ctx context.Context, model string, after int64) (int64, error)
	// DropVectorsExcept removes the vectors of every other model.
	DropVectorsExcept(ctx context.Context, model string) (int64, error)
}

// noEmbedder stands in when the wiring gave none: search keeps its
// keyword leg, and nothing waits for vectors that will not come.
type noEmbedder struct{}

func (noEmbedder) Model() string { return "" }

func (noEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, contract.Errorf(contract.CodeNoModel, "memory runs without an embedder: search uses keywords alone")
}

// embeds reports whether the service has an embedder to run.
func (s *Service) embeds() bool {
	_, none := s.embedder.(noEmbedder)
	return !none
}

// embedState is how far embedding has come. Holding turn (its one slot
// taken) serializes embedding, and is waited for only as long as the
// caller's context allows: a write embedding inline gives up at its
// deadline instead of queueing behind the worker's slow batch. Every item
// up to embeddedThrough has a vector of the active model, so the search
// for items without one starts after it instead of at the first item.
type embedState struct {
	inlineTimeout   time.Duration
	wake            chan struct{}
	turn            chan struct{}
	embeddedThrough int64
	progress        embedProgress
}

func newEmbedState(inline time.Duration) *embedState {
	return &embedState{inlineTimeout: inline, wake: make(chan struct{}, 1), turn: make(chan struct{}, 1)}
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
	if !s.embeds() {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.embed.inlineTimeout)
	defer cancel()
	for {
		n, err := s.embedBatch(ctx, 64)
		if err != nil {
			s.log.Debug("embedding deferred to the background", "model", s.embedder.Model(), "err", err)
			s.Wake(ctx)
			return
		}
		if n == 0 {
			return
		}
	}
}

// Wake tells the background worker (Run) that items without a vector
// were stored, and returns at once: a replica's follower calls it after
// applying others' writes, so the stream is never held up by an embedder.
func (s *Service) Wake(context.Context) {
	if s.embed == nil {
		return
	}
	select {
	case s.embed.wake <- struct{}{}:
	default: // a wake is pending: the worker will find these items too
	}
}

// embedBatch embeds up to n items that lack a vector of the active model and
// reports how many it stored.
func (s *Service) embedBatch(ctx context.Context, n int) (int, error) {
	v := s.embed
	select {
	case v.turn <- struct{}{}:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	defer func() { <-v.turn }()
	items, err := s.vectors.Unembedded(ctx, s.embedder.Model(), v.embeddedThrough, n)
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
	if err := s.vectors.PutVectors(ctx, s.embedder.Model(), out); err != nil {
		return 0, err
	}
	v.embeddedThrough = items[len(items)-1].Seq
	v.progress.embedded(v.embeddedThrough)
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
	if !s.embeds() {
		return
	}
	const batch = 64
	backoff := time.Second
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	done, cleaned := 0, false
	for {
		// Read before the batch: when it finds nothing to embed, every
		// item up to these marks has its vector, and the backlog's count
		// (EmbeddingProgress) need not read them.
		m, merr := s.store.Marks(ctx)
		n, err := s.embedBatch(ctx, batch)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			s.log.Warn("embedding failed; retrying", "model", s.embedder.Model(), "in", backoff, "err", contract.ErrorMessage(err))
			s.embed.progress.failed(err, s.now(), backoff)
			if !sleep(ctx, backoff) {
				return
			}
			backoff = min(2*backoff, time.Minute)
			continue
		case n > 0:
			backoff = time.Second
			s.embed.progress.succeeded()
			done += n
			if done%1024 < n {
				s.log.Info("embedding memory items", "model", s.embedder.Model(), "embedded", done)
			}
			continue
		}
		s.embed.progress.succeeded()
		if merr == nil {
			s.embed.progress.embedded(m.Items)
		}
		if done > 0 {
			s.log.Info("every memory item has a vector", "model", s.embedder.Model(), "embedded_now", done)
			done = 0
		}
		if !cleaned {
			if dropped, err := s.vectors.DropVectorsExcept(ctx, s.embedder.Model()); err == nil {
				cleaned = true
				if dropped > 0 {
					s.log.Info("dropped vectors of previous models", "count", dropped, "model", s.embedder.Model())
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-s.embed.wake:
		case <-tick.C:
		}
	}
}

// warm builds the in-memory indexes now, so that the first search does not
// wait for them (they take seconds at a million items).
func (s *Service) warm(ctx context.Context) {
	start := time.Now()
	m, err := s.store.Marks(ctx)
	if err == nil {
		err = s.search.Warm(ctx, m)
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

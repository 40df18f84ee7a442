package memory

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// embedProgress is what the background worker last saw, kept apart from
// embedding's turn so that a status read never waits behind a slow embedder.
type embedProgress struct {
	mu        sync.Mutex
	through   int64 // every item up to it has a vector of the active model
	failures  int
	lastErr   string
	lastErrAt time.Time
	backoff   time.Duration
	retryAt   time.Time
	// The last count, kept while the store has not changed (its marks),
	// and for at most recountEvery when it has: counting reads every item
	// after through, half a second at 100,000 items while re-embedding.
	counted  time.Time
	countAt  Marks
	count    int64
	countErr error
}

const recountEvery = 2 * time.Second

func (p *embedProgress) embedded(through int64) {
	p.mu.Lock()
	p.through = max(p.through, through)
	p.mu.Unlock()
}

func (p *embedProgress) succeeded() {
	p.mu.Lock()
	p.failures, p.backoff, p.retryAt = 0, 0, time.Time{}
	p.mu.Unlock()
}

func (p *embedProgress) failed(err error, at time.Time, backoff time.Duration) {
	p.mu.Lock()
	p.failures++
	p.lastErr, p.lastErrAt = contract.ErrorMessage(err), at
	p.backoff, p.retryAt = backoff, at.Add(backoff)
	p.mu.Unlock()
}

// EmbeddingProgress says how many items wait for a vector of the active
// model and how the embedder fares; nil when memory is off. The count is
// of the items after those known to have one, so it is cheap once
// embedding has caught up; while the store changes it is at most
// recountEvery old.
func (s *Service) EmbeddingProgress(ctx context.Context) *contract.EmbeddingProgress {
	if s.off != "" {
		return nil
	}
	p := &s.embed.progress
	out := contract.EmbeddingProgress{Model: s.embedder.Model()}
	p.mu.Lock()
	out.Failures, out.LastError = p.failures, p.lastErr
	through := p.through
	if !p.lastErrAt.IsZero() {
		out.LastErrorAt = p.lastErrAt.UTC().Format(time.RFC3339)
	}
	if p.failures > 0 {
		out.BackoffSeconds = p.backoff.Seconds()
		out.RetryAt = p.retryAt.UTC().Format(time.RFC3339)
	}
	p.mu.Unlock()
	n, err := s.countUnembedded(ctx, out.Model, through)
	if err != nil {
		out.Pending = -1
	} else {
		out.Pending = n
	}
	out.Detail = progressDetail(out, err)
	if s.modelState != nil {
		out.Configured = s.modelState()
	}
	if s.rerankerState != nil {
		out.Reranker = s.rerankerState()
	}
	return &out
}

func (s *Service) countUnembedded(ctx context.Context, model string, through int64) (int64, error) {
	p := &s.embed.progress
	m, merr := s.store.Marks(ctx)
	p.mu.Lock()
	if merr == nil && !p.counted.IsZero() && (m == p.countAt || s.now().Sub(p.counted) < recountEvery) {
		n, err := p.count, p.countErr
		p.mu.Unlock()
		return n, err
	}
	p.mu.Unlock()
	n, err := s.vectors.CountUnembedded(ctx, model, through)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counted, p.countAt, p.count, p.countErr = s.now(), m, n, err
	if err == nil && n == 0 && merr == nil {
		// Every item stored before the marks were read has its vector.
		p.through = max(p.through, m.Items)
	}
	return n, err
}

func progressDetail(p contract.EmbeddingProgress, countErr error) string {
	waiting := fmt.Sprintf("%d items wait for a vector of %s", p.Pending, p.Model)
	switch {
	case countErr != nil:
		waiting = "the items waiting for a vector of " + p.Model + " could not be counted (" + contract.ErrorMessage(countErr) + ")"
	case p.Pending == 1:
		waiting = "1 item waits for a vector of " + p.Model
	case p.Pending == 0 && !p.Failing():
		return "every item has a vector of " + p.Model
	}
	if p.Failing() {
		return fmt.Sprintf("%s: the embedder failed %d times in a row (%s); the next attempt is in %s, at %s. Searches find those items by their words meanwhile; check the embedder named in memory.embeddings.",
			waiting, p.Failures, p.LastError, time.Duration(p.BackoffSeconds*float64(time.Second)), p.RetryAt)
	}
	return waiting + "; they are being embedded, and searches find them by their words meanwhile"
}

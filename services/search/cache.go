package search

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// Cache keeps search results for a while. Two backends exist: in-process
// (NewMemoryCache) and Redis, shared by replicas. A failing cache is a miss,
// never a failed search; backends log their own outages, the service counts
// the failures.
type Cache interface {
	Get(ctx context.Context, key string) ([]byte, bool, error)
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
}

// Limiter spends a provider's tokens: perMinute tokens a minute, up to
// burst at once. Take reports false when the bucket is empty. A failing
// limiter lets the call through.
type Limiter interface {
	Take(ctx context.Context, provider string, perMinute, burst int) (bool, error)
}

// MemoryCache is an in-process cache with TTLs and a size bound (least
// recently used entries go first).
type MemoryCache struct {
	mu      sync.Mutex
	max     int
	now     clock
	order   *list.List // front: most recently used
	entries map[string]*list.Element
}

type cacheEntry struct {
	key     string
	value   []byte
	expires time.Time
}

var _ Cache = (*MemoryCache)(nil)

// NewMemoryCache holds up to max entries.
func NewMemoryCache(max int) *MemoryCache {
	return &MemoryCache{max: max, now: time.Now, order: list.New(), entries: map[string]*list.Element{}}
}

// Get returns a live entry.
func (c *MemoryCache) Get(_ context.Context, key string) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil, false, nil
	}
	e := el.Value.(*cacheEntry)
	if c.now().After(e.expires) {
		c.order.Remove(el)
		delete(c.entries, key)
		return nil, false, nil
	}
	c.order.MoveToFront(el)
	return e.value, true, nil
}

// Set stores value for ttl.
func (c *MemoryCache) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.order.Remove(el)
	}
	c.entries[key] = c.order.PushFront(&cacheEntry{key: key, value: value, expires: c.now().Add(ttl)})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.entries, last.Value.(*cacheEntry).key)
	}
	return nil
}

// MemoryLimiter is an in-process token bucket per provider.
type MemoryLimiter struct {
	mu      sync.Mutex
	now     clock
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

var _ Limiter = (*MemoryLimiter)(nil)

// NewMemoryLimiter returns an empty set of buckets (each starts full).
func NewMemoryLimiter() *MemoryLimiter {
	return &MemoryLimiter{now: time.Now, buckets: map[string]*bucket{}}
}

// Take spends one token if there is one.
func (l *MemoryLimiter) Take(_ context.Context, provider string, perMinute, burst int) (bool, error) {
	if perMinute <= 0 {
		return true, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, ok := l.buckets[provider]
	if !ok {
		b = &bucket{tokens: float64(burst), at: now}
		l.buckets[provider] = b
	}
	b.tokens = min(float64(burst), b.tokens+now.Sub(b.at).Minutes()*float64(perMinute))
	b.at = now
	if b.tokens < 1 {
		return false, nil
	}
	b.tokens--
	return true, nil
}

// flight makes concurrent identical searches share one provider call. The
// call runs detached from any one caller's context, so a caller that gives
// up neither cancels it for the others nor counts as a provider failure;
// provider timeouts bound it.
type flight struct {
	mu    sync.Mutex
	calls map[string]*call
}

type call struct {
	done chan struct{}
	page *Page
	err  error
}

// do runs fn once for concurrent callers with the same key and waits for it
// or for ctx, whichever ends first.
func (f *flight) do(ctx context.Context, key string, fn func(context.Context) (*Page, error)) (*Page, error) {
	f.mu.Lock()
	if f.calls == nil {
		f.calls = map[string]*call{}
	}
	c, ok := f.calls[key]
	if !ok {
		c = &call{done: make(chan struct{})}
		f.calls[key] = c
		go func() {
			c.page, c.err = fn(context.WithoutCancel(ctx))
			f.mu.Lock()
			delete(f.calls, key)
			f.mu.Unlock()
			close(c.done)
		}()
	}
	f.mu.Unlock()
	select {
	case <-c.done:
		return c.page, c.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

package search

import (
	"container/list"
	"context"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"
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
	buckets map[string]*rate.Limiter
}

var _ Limiter = (*MemoryLimiter)(nil)

// NewMemoryLimiter returns an empty set of buckets (each starts full).
func NewMemoryLimiter() *MemoryLimiter {
	return &MemoryLimiter{now: time.Now, buckets: map[string]*rate.Limiter{}}
}

// Take spends one token if there is one. The limits come with each call,
// so a bucket follows them when they change.
func (l *MemoryLimiter) Take(_ context.Context, provider string, perMinute, burst int) (bool, error) {
	if perMinute <= 0 {
		return true, nil
	}
	now, every := l.now(), rate.Limit(float64(perMinute)/60)
	l.mu.Lock()
	b, ok := l.buckets[provider]
	if !ok {
		b = rate.NewLimiter(every, burst)
		l.buckets[provider] = b
	}
	l.mu.Unlock()
	if b.Limit() != every {
		b.SetLimitAt(now, every)
	}
	if b.Burst() != burst {
		b.SetBurstAt(now, burst)
	}
	return b.AllowN(now, 1), nil
}

// flight makes concurrent identical searches share one provider call. The
// call runs detached from any one caller's context, so a caller that gives
// up neither cancels it for the others nor counts as a provider failure;
// provider timeouts bound it.
type flight struct{ group singleflight.Group }

// do runs fn once for concurrent callers with the same key and waits for it
// or for ctx, whichever ends first.
func (f *flight) do(ctx context.Context, key string, fn func(context.Context) (*Page, error)) (*Page, error) {
	ch := f.group.DoChan(key, func() (any, error) { return fn(context.WithoutCancel(ctx)) })
	select {
	case r := <-ch:
		page, _ := r.Val.(*Page)
		return page, r.Err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

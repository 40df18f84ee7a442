package memory

import (
	"context"
	"sync"
)

// itemReader is the port the hits of a search are read through.
type itemReader interface {
	// Items returns the items with the given seqs; missing ones are absent.
	Items(ctx context.Context, seqs []int64) (map[int64]Item, error)
}

// itemCache keeps recently read items in memory, bounded by the bytes of
// their text, so that the hits of a search are not decoded from SQLite again
// each time they come up. Items never change once stored; one leaves the
// cache when an index sees its deletion, so a forgotten item is served from
// here only by a read that raced its forgetting.
type itemCache struct {
	mu       sync.Mutex
	items    map[int64]Item
	bytes    int
	maxBytes int
}

// itemCacheBytes bounds the cache: about 30,000 notes of a kilobyte.
const itemCacheBytes = 32 << 20

func newItemCache(maxBytes int) *itemCache {
	return &itemCache{items: map[int64]Item{}, maxBytes: maxBytes}
}

func itemSize(it Item) int { return len(it.Text) + 256 }

func (c *itemCache) put(it Item) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[it.Seq]; ok || itemSize(it) > c.maxBytes {
		return
	}
	// Past the bound, evict whatever the map yields first: random, cheap,
	// and good enough when hits repeat.
	for seq, old := range c.items {
		if c.bytes+itemSize(it) <= c.maxBytes {
			break
		}
		delete(c.items, seq)
		c.bytes -= itemSize(old)
	}
	c.items[it.Seq] = it
	c.bytes += itemSize(it)
}

func (c *itemCache) drop(seq int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if it, ok := c.items[seq]; ok {
		delete(c.items, seq)
		c.bytes -= itemSize(it)
	}
}

// items returns the items with the given seqs, from the cache where it has
// them and from the store for the rest.
func (s *Service) items(ctx context.Context, seqs []int64) (map[int64]Item, error) {
	out := make(map[int64]Item, len(seqs))
	var missing []int64
	s.cache.mu.Lock()
	for _, seq := range seqs {
		if it, ok := s.cache.items[seq]; ok {
			out[seq] = it
		} else {
			missing = append(missing, seq)
		}
	}
	s.cache.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	read, err := s.reads.Items(ctx, missing)
	if err != nil {
		return nil, err
	}
	for seq, it := range read {
		out[seq] = it
		s.cache.put(it)
	}
	return out, nil
}

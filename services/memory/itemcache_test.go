package memory

import "testing"

func TestItemCacheBound(t *testing.T) {
	c := newItemCache(10 * itemSize(Item{Text: "x"}))
	for i := 1; i <= 25; i++ {
		c.put(Item{Seq: int64(i), Text: "x"})
	}
	if len(c.items) != 10 || c.bytes != 10*itemSize(Item{Text: "x"}) {
		t.Errorf("%d items, %d bytes; want 10 items within the bound", len(c.items), c.bytes)
	}
	c.put(Item{Seq: 99, Text: string(make([]byte, 20*itemSize(Item{})))})
	if _, ok := c.items[99]; ok {
		t.Error("an item larger than the whole cache was kept")
	}
	for seq := range c.items {
		c.drop(seq)
	}
	if len(c.items) != 0 || c.bytes != 0 {
		t.Errorf("after dropping all: %d items, %d bytes", len(c.items), c.bytes)
	}
}

package bufpool

import "testing"

// A buffer given back is handed out again, empty, with what it grew to;
// one grown past the bound is not kept.
func TestPool(t *testing.T) {
	p := New(16, 64)
	b := p.Get()
	if len(*b) != 0 || cap(*b) < 16 {
		t.Fatalf("a new buffer: len %d cap %d", len(*b), cap(*b))
	}
	grown := append(*b, make([]byte, 40)...)
	p.Put(b, grown)
	if len(*b) != 0 || cap(*b) != cap(grown) {
		t.Errorf("given back: len %d cap %d, want 0 and %d", len(*b), cap(*b), cap(grown))
	}
	huge := p.Get()
	p.Put(huge, make([]byte, 0, 128))
	if cap(*p.Get()) == 128 {
		t.Error("a buffer past the bound was kept")
	}
}

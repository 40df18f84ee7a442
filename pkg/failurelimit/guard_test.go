package failurelimit

import (
	"strings"
	"testing"
	"time"
)

func TestGuard(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	g := NewGuard(12*time.Second, 5)
	g.sources.now = c.now

	// A client retrying one wrong token is not held back for it.
	for range 20 {
		g.Failed("198.51.100.1", "oh_revoked")
	}
	if w := g.Wait("198.51.100.1"); w != 0 {
		t.Fatalf("one wrong token sent 20 times held its source back %s", w)
	}
	// Five distinct guesses do, and only that source.
	for i := range 5 {
		g.Failed("198.51.100.2", "oh_guess"+strings.Repeat("x", i))
	}
	if w := g.Wait("198.51.100.2"); w <= 0 || w > 12*time.Second {
		t.Errorf("after five guesses the source waits %s, want up to 12s", w)
	}
	if w := g.Wait("198.51.100.3"); w != 0 {
		t.Errorf("another address waits %s for the guesses of the first", w)
	}
	// An hour on, a token known wrong counts again.
	c.t = c.t.Add(wrongKept)
	g.Failed("198.51.100.1", "oh_revoked")
	if g.sources.by["198.51.100.1"].TokensAt(c.t) > 4 {
		t.Error("a wrong token known for over an hour did not count")
	}
	// No token is kept, only keyed hashes of them.
	for k := range g.counted {
		if strings.Contains(string(k[:]), "oh_") {
			t.Error("a token is kept as it was presented")
		}
	}
}

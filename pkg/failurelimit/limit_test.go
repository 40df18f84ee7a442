package failurelimit

import (
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestLimiter(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	l := NewLimiter(10*time.Second, 3)
	l.now = c.now
	for range 3 {
		if w := l.Wait("10.0.0.1"); w != 0 {
			t.Fatalf("waits %v before its burst is spent", w)
		}
		l.Failed("10.0.0.1")
	}
	if w := l.Wait("10.0.0.1"); w <= 0 || w > 10*time.Second {
		t.Fatalf("after 3 failures it waits %v", w)
	}
	if w := l.Wait("10.0.0.2"); w != 0 {
		t.Errorf("another address waits %v", w)
	}
	c.t = c.t.Add(10 * time.Second)
	if w := l.Wait("10.0.0.1"); w != 0 {
		t.Errorf("after the interval it still waits %v", w)
	}
}

package testbuf

import (
	"strings"
	"sync"
	"testing"
)

func TestConcurrentWritesAllKept(t *testing.T) {
	var seen int
	b := &Buffer{OnWrite: func(all []byte) { seen = len(all) }}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("line\n"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if got := strings.Count(b.String(), "line\n"); got != 800 || seen != 800*5 {
		t.Fatalf("%d lines kept, OnWrite saw %d bytes; want 800 and %d", got, seen, 800*5)
	}
}

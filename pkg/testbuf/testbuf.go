// Package testbuf is for tests: a buffer that goroutines write while the
// test reads it, such as a process's stderr or a server's log.
package testbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer safe for concurrent writes and reads. OnWrite,
// when set before the first write, is called with everything written so
// far after each write, under the lock: a test waiting for a line
// watches for it there.
type Buffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	OnWrite func(all []byte)
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.b.Write(p)
	if l.OnWrite != nil {
		l.OnWrite(l.b.Bytes())
	}
	return n, err
}

// String returns everything written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

package sqlite

import (
	"bytes"
	"context"
	"os"
	"sync"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// Marks reads the newest item, vector and deletion in one lookup, unless
// no transaction has committed to the file since the last lookup, in any
// process: then the marks cannot have changed, and the last ones are
// returned. Every search asks for them (to follow other processes'
// writes), and the lookup was the largest cost of a search that finds
// nothing (BenchmarkMarks).
func (s *Store) Marks(ctx context.Context) (memory.Marks, error) {
	if err := ctx.Err(); err != nil {
		return memory.Marks{}, s.storeErr("reading", err)
	}
	hdr, known := s.walIndexHeader()
	if known {
		if m, ok := s.marks.get(hdr); ok {
			return m, nil
		}
	}
	m, err := s.readMarks(ctx)
	if err == nil && known {
		s.marks.set(hdr, m)
	}
	return m, err
}

func (s *Store) readMarks(ctx context.Context) (memory.Marks, error) {
	var m memory.Marks
	err := s.lookups(ctx, `SELECT (SELECT coalesce(max(seq), 0) FROM items), (SELECT coalesce(max(vid), 0) FROM item_vectors),
		(SELECT coalesce(max(id), 0) FROM vector_deletions)`, []any{&m.Items, &m.Vectors, &m.Deletions})
	return m, err
}

// walIndexHeaderSize is the size of one copy of SQLite's wal-index header,
// at the start of the -shm file (https://www.sqlite.org/walformat.html).
// A commit rewrites it (the last valid frame, the change counter, the
// salts when the log restarts), so while it reads the same no transaction
// has committed. It is read before the marks it vouches for, so a commit
// between the two makes the next read differ, never the reverse.
const walIndexHeaderSize = 48

type walHeader [walIndexHeaderSize]byte

// walIndexHeader reads the header, reporting false when it cannot be
// trusted: no -shm file (not WAL, or the file is being created), a header
// not initialized yet, or two copies that differ because a writer is
// rewriting them right now.
func (s *Store) walIndexHeader() (walHeader, bool) {
	var hdr walHeader
	var buf [2 * walIndexHeaderSize]byte
	if !s.shm.read(s.Path+"-shm", buf[:]) {
		return hdr, false
	}
	const isInit = 12 // offset of the isInit flag
	if buf[isInit] != 1 || !bytes.Equal(buf[:walIndexHeaderSize], buf[walIndexHeaderSize:]) {
		return hdr, false
	}
	copy(hdr[:], buf[:walIndexHeaderSize])
	return hdr, true
}

// shmFile keeps the -shm file open: opening it costs more than the lookup
// it saves (BenchmarkMarks). SQLite deletes the file when the last
// connection to the database closes, which cannot happen while this store
// holds its own; still, once a second the name is checked to lead to the
// same file, and a new file is opened if not.
type shmFile struct {
	mu      sync.Mutex
	f       *os.File
	checked time.Time
}

func (m *shmFile) read(path string, buf []byte) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if now := time.Now(); m.f == nil || now.Sub(m.checked) > time.Second {
		m.checked = now
		if m.f == nil || !sameFile(m.f, path) {
			m.close()
			f, err := os.Open(path)
			if err != nil {
				return false
			}
			m.f = f
		}
	}
	n, err := m.f.ReadAt(buf, 0)
	return n == len(buf) && err == nil
}

func sameFile(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

func (m *shmFile) close() {
	if m.f != nil {
		m.f.Close()
		m.f = nil
	}
}

// marksCache is the last marks read and the header they were read under.
type marksCache struct {
	mu    sync.Mutex
	hdr   walHeader
	marks memory.Marks
	ok    bool
}

func (c *marksCache) get(hdr walHeader) (memory.Marks, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.marks, c.ok && c.hdr == hdr
}

func (c *marksCache) set(hdr walHeader, m memory.Marks) {
	c.mu.Lock()
	c.hdr, c.marks, c.ok = hdr, m, true
	c.mu.Unlock()
}

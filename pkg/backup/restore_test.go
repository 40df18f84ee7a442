package backup

import (
	"archive/tar"
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// written is how many bytes this process has handed to write(2) so far
// (/proc/self/io's wchar, every thread counted): what a restore wrote,
// however quickly it took it away again.
func written(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Skipf("no /proc/self/io to count bytes written: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Skip("/proc/self/io holds no wchar")
	return 0
}

// slack is what a refused restore may write besides the files: the test's
// own log lines and SQLite's.
const slack = 64 << 10

// sparseBomb is a backup of a few KiB whose memory.db is an old-GNU sparse
// tar entry that unfolds into unfolded bytes of zeros (a hole, then one
// stored block); its manifest claims claimed bytes for it.
func sparseBomb(t *testing.T, claimed, unfolded int64) string {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	man, _ := json.Marshal(Manifest{Format: Format, Version: Version, Files: map[string]FileEntry{"memory.db": {Bytes: claimed, Schema: 1}}})
	if err := tw.WriteHeader(&tar.Header{Name: "manifest.json", Mode: 0o600, Size: int64(len(man))}); err != nil {
		t.Fatal(err)
	}
	_, _ = tw.Write(man)
	_ = tw.Flush()
	buf.Write(gnuSparseHeader("memory.db", unfolded-512, 512, unfolded))
	buf.Write(make([]byte, 512))  // the one stored block
	buf.Write(make([]byte, 1024)) // the archive's end
	path := filepath.Join(t.TempDir(), "bomb.backup")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// gnuSparseHeader is an old-GNU sparse header ('S') storing n bytes at
// offset of a file of realSize bytes; archive/tar reads such entries
// but will not write them.
func gnuSparseHeader(name string, offset, n, realSize int64) []byte {
	b := make([]byte, 512)
	octal := func(at, width int, v int64) { copy(b[at:at+width], fmt.Sprintf("%0*o\x00", width-1, v)) }
	copy(b[0:], name)
	octal(100, 8, 0o600) // mode
	octal(108, 8, 0)     // uid
	octal(116, 8, 0)     // gid
	octal(124, 12, n)    // size: the bytes stored
	octal(136, 12, 0)    // mtime
	b[156] = 'S'
	copy(b[257:], "ustar  \x00")
	octal(386, 12, offset) // sparse[0].offset
	octal(398, 12, n)      // sparse[0].numbytes
	octal(483, 12, realSize)
	copy(b[148:156], "        ")
	var sum int64
	for _, c := range b {
		sum += int64(c)
	}
	copy(b[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

func homeOf(t *testing.T) (string, []File) {
	home := filepath.Join(t.TempDir(), "home")
	return home, []File{{Name: "memory.db", Path: filepath.Join(home, "memory.db"), Schema: 1}}
}

// A backup of a few KiB that unfolds into 64 MiB is refused having
// written next to nothing, whether its manifest claims the unfolded size
// (more than the archive holds) or a small one (checked, in the past,
// only once the copy was made).
func TestRestoreRefusesSparseBomb(t *testing.T) {
	const unfolded = 64 << 20
	for name, claimed := range map[string]int64{"claims what it unfolds to": unfolded, "claims a small file": 4096} {
		t.Run(name, func(t *testing.T) {
			src := sparseBomb(t, claimed, unfolded)
			home, files := homeOf(t)
			before := written(t)
			_, err := Restore(t.Context(), src, files, RestoreOptions{})
			wrote := written(t) - before
			if err == nil {
				t.Fatal("restored a sparse bomb")
			}
			if wrote > slack {
				t.Errorf("wrote %d bytes before refusing (%v); want at most %d", wrote, err, slack)
			}
			if !strings.Contains(err.Error(), "was not written by openhuman-core backup") {
				t.Errorf("refused with %q; want it named damaged or foreign", err)
			}
			if left, _ := os.ReadDir(home); len(left) > 0 {
				t.Errorf("left in the home: %v", left)
			}
		})
	}
}

// mustBackup writes a backup of a memory.db of about size bytes.
func mustBackup(t *testing.T, size int) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "memory.db")
	db, err := sql.Open("sqlite", "file:"+src)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t (b BLOB); PRAGMA user_version = 1`); err != nil {
		t.Fatal(err)
	}
	for range size / (64 << 10) {
		if _, err := db.Exec(`INSERT INTO t VALUES (randomblob(65536))`); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "b.backup")
	if _, err := Write(t.Context(), out, []File{{Name: "memory.db", Path: src, Schema: 1}}); err != nil {
		t.Fatal(err)
	}
	return out
}

// A whole, honest backup larger than the limit is refused before any of
// it is written, with ErrTooLarge and the limit named; under a limit it
// fits, it restores.
func TestRestoreRefusesPastLimit(t *testing.T) {
	src := mustBackup(t, 4<<20)
	const limit = 1 << 20
	home, files := homeOf(t)
	before := written(t)
	_, err := Restore(t.Context(), src, files, RestoreOptions{MaxBytes: limit})
	wrote := written(t) - before
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("restore of a 4 MiB backup under a 1 MiB limit: %v; want ErrTooLarge", err)
	}
	if wrote > limit+slack {
		t.Errorf("wrote %d bytes before refusing; want at most %d", wrote, limit+slack)
	}
	if !strings.Contains(err.Error(), strconv.Itoa(limit)) {
		t.Errorf("%q does not name the limit", err)
	}
	if left, _ := os.ReadDir(home); len(left) > 0 {
		t.Errorf("left in the home: %v", left)
	}
	if _, err := Restore(t.Context(), src, files, RestoreOptions{MaxBytes: 8 << 20}); err != nil {
		t.Fatalf("under a limit it fits: %v", err)
	}
	if _, err := os.Stat(files[0].Path); err != nil {
		t.Fatal(err)
	}
}

package main

import (
	"archive/tar"
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/sqlitefile"
)

// TestBackupUnderLoad: a backup taken while two servers keep writing to
// the home restores into a fresh home as a sound database (PRAGMA
// integrity_check) holding every write acknowledged before the backup
// began, and that home serves it.
func TestBackupUnderLoad(t *testing.T) {
	home := t.TempDir()
	var (
		mu    sync.Mutex
		acked []string // ids of learnings the servers answered
		stop  atomic.Bool
		wg    sync.WaitGroup
		after atomic.Int64 // writes acknowledged once the backup had begun
		began atomic.Bool
	)
	for w := range 2 {
		p := startMCP(t, home)
		p.initialize(fmt.Sprintf("writer-%d", w))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				res := p.tool(i+1, "memory.learn", map[string]any{"text": fmt.Sprintf("Writer %d wrote note %d while the backup ran.", w, i)})
				mu.Lock()
				acked = append(acked, res["id"].(string))
				mu.Unlock()
				if began.Load() {
					after.Add(1)
				}
			}
		}()
	}
	for { // some writes first
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 40 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	before := append([]string(nil), acked...)
	mu.Unlock()
	began.Store(true)
	file := filepath.Join(t.TempDir(), "home.backup")
	out := mustCore(t, home, "backup", file)
	mustContain(t, out, "backed up audit.db (")
	mustContain(t, out, "memory.db (")
	time.Sleep(200 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	if after.Load() == 0 {
		t.Fatal("no write was acknowledged during or after the backup: the load did not overlap it")
	}

	fresh := t.TempDir()
	out = mustCore(t, fresh, "restore", file)
	mustContain(t, out, "restored ")
	db := filepath.Join(fresh, "memory.db")
	if _, err := sqlitefile.Inspect(t.Context(), db); err != nil {
		t.Fatalf("the restored memory is not sound: %v", err)
	}
	if _, err := sqlitefile.Inspect(t.Context(), filepath.Join(fresh, "audit.db")); err != nil {
		t.Fatalf("the restored audit is not sound: %v", err)
	}
	have := map[string]bool{}
	conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(`SELECT id FROM items`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		_ = rows.Scan(&id)
		have[id] = true
	}
	rows.Close()
	conn.Close()
	missing := 0
	for _, id := range before {
		if !have[id] {
			missing++
		}
	}
	if missing > 0 {
		t.Fatalf("%d of the %d writes acknowledged before the backup began are not in it", missing, len(before))
	}
	t.Logf("%d writes acknowledged before the backup, %d during and after it; the backup holds %d items", len(before), after.Load(), len(have))
	listed := mustCore(t, fresh, "call", "memory.list", `{"limit":1}`)
	mustContain(t, listed, "while the backup ran.")
}

// TestRestoreRefuses: restore leaves a home alone while a server has it
// open, when it already holds memory (unless --force), and for a backup
// of a newer format or schema.
func TestRestoreRefuses(t *testing.T) {
	src := t.TempDir()
	mustCore(t, src, "call", "memory.learn", `{"text":"Restores must be careful."}`)
	file := filepath.Join(t.TempDir(), "b.backup")
	mustCore(t, src, "backup", file)

	busy := t.TempDir()
	p := startMCP(t, busy)
	p.initialize("")
	p.tool(1, "memory.learn", map[string]any{"text": "This home is in use."})
	_, errs, code := core(t, busy, "restore", "--force", file)
	if code != 1 {
		t.Fatalf("restore into a home in use: exit %d, want 1", code)
	}
	mustContain(t, errs, "is open in a running openhuman-core (or service): stop it, then restore")
	p.closeAndWait()

	_, errs, code = core(t, busy, "restore", file)
	if code != 1 {
		t.Fatalf("restore over memory without --force: exit %d", code)
	}
	mustContain(t, errs, "exists: restore into an empty home, or pass --force")
	mustContain(t, mustCore(t, busy, "restore", "--force", file), "restored ")
	listed := mustCore(t, busy, "call", "memory.list", `{}`)
	mustContain(t, listed, "Restores must be careful.")
	if bytes.Contains([]byte(listed), []byte("This home is in use.")) {
		t.Error("--force kept the memory it replaced")
	}

	newer := rewriteBackup(t, file, func(name string, data []byte) []byte {
		if name == "manifest.json" {
			var m map[string]any
			_ = json.Unmarshal(data, &m)
			m["version"] = 2
			data, _ = json.Marshal(m)
		}
		return data
	})
	_, errs, _ = core(t, t.TempDir(), "restore", newer)
	mustContain(t, errs, "is backup format version 2, newer than this openhuman-core restores (1)")

	newSchema := rewriteBackup(t, file, func(name string, data []byte) []byte {
		if name != "memory.db" {
			return data
		}
		path := filepath.Join(t.TempDir(), "m.db")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`PRAGMA user_version = 999`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		data, _ = os.ReadFile(path)
		return data
	})
	empty := t.TempDir()
	_, errs, _ = core(t, empty, "restore", newSchema)
	mustContain(t, errs, "memory.db of "+newSchema+" is schema version 999, newer than this openhuman-core knows")
	if _, err := os.Stat(filepath.Join(empty, "memory.db")); err == nil {
		t.Error("a refused restore left a memory.db in the home")
	}
}

// A backup goes into a home not made yet, as docs/export.md shows; a FILE
// that is a folder, an empty home or a missing backup is refused by name,
// and nothing is left beside the file.
func TestBackupAndRestoreByName(t *testing.T) {
	src := t.TempDir()
	mustCore(t, src, "call", "memory.learn", `{"text":"A new home is made for a restore."}`)
	dir := t.TempDir()
	for _, cmd := range []string{"backup", "export"} {
		_, errs, code := core(t, src, cmd, dir)
		if code != 1 {
			t.Errorf("%s to a directory: exit %d, want 1", cmd, code)
		}
		mustContain(t, errs, dir+" is a directory: name a file in it to write")
	}
	for cmd, want := range map[string]string{"backup": "- (standard output) is not a file", "restore": "- (standard input) is not a file"} {
		_, errs, code := core(t, src, cmd, "-")
		if code != 1 {
			t.Errorf("%s -: exit %d, want 1", cmd, code)
		}
		mustContain(t, errs, want)
	}
	if _, err := os.Stat("-"); err == nil {
		os.Remove("-")
		t.Error(`backup - wrote a file named "-"`)
	}
	if leftover, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), "*.partial")); len(leftover) > 0 {
		t.Errorf("left beside the directory: %v", leftover)
	}
	_, errs, _ := core(t, t.TempDir(), "backup", filepath.Join(dir, "empty.backup"))
	mustContain(t, errs, "holds no memory.db yet: nothing to back up")

	file := filepath.Join(dir, "b.backup")
	mustCore(t, src, "backup", file)
	home := filepath.Join(t.TempDir(), "new", "home")
	mustContain(t, mustCore(t, home, "restore", file), "restored ")
	if st, err := os.Stat(home); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("the home restore made: %v, %v; want a 0700 directory", st, err)
	}
	mustContain(t, mustCore(t, home, "call", "memory.list", `{}`), "A new home is made for a restore.")
	_, errs, _ = core(t, filepath.Join(t.TempDir(), "other"), "restore", filepath.Join(dir, "missing.backup"))
	mustContain(t, errs, "missing.backup does not exist: name a file that openhuman-core backup wrote")
	// A home made for a restore that is then refused is not left behind.
	notBackup := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notBackup, []byte("not a backup\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	refused := filepath.Join(t.TempDir(), "refused")
	_, errs, _ = core(t, refused, "restore", notBackup)
	mustContain(t, errs, "is not an openhuman-core backup")
	if _, err := os.Stat(refused); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused restore left the home it made: %v", err)
	}
}

// rewriteBackup copies a backup with each file passed through edit, the
// manifest's sizes kept true.
func rewriteBackup(t *testing.T, path string, edit func(name string, data []byte) []byte) string {
	t.Helper()
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	type entry struct {
		name string
		data []byte
	}
	var entries []entry
	tr := tar.NewReader(in)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		entries = append(entries, entry{h.Name, edit(h.Name, data)})
	}
	var man map[string]any
	_ = json.Unmarshal(entries[0].data, &man)
	for _, e := range entries[1:] {
		man["files"].(map[string]any)[e.name].(map[string]any)["bytes"] = len(e.data)
	}
	entries[0].data, _ = json.Marshal(man)
	out := filepath.Join(t.TempDir(), "edited.backup")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(f)
	for _, e := range entries {
		_ = tw.WriteHeader(&tar.Header{Name: e.name, Mode: 0o600, Size: int64(len(e.data))})
		_, _ = tw.Write(e.data)
	}
	tw.Close()
	f.Close()
	return out
}

// A backup larger than memory.max_restore_mb is refused before anything
// is written, and the refusal says which setting to raise.
func TestRestoreLimit(t *testing.T) {
	src := t.TempDir()
	mustCore(t, src, "call", "memory.learn", `{"text":"A restore has a limit."}`)
	file := filepath.Join(t.TempDir(), "b.backup")
	mustCore(t, src, "backup", file)
	padded := rewriteBackup(t, file, func(name string, data []byte) []byte {
		if name == "memory.db" {
			return append(data, make([]byte, 2<<20)...)
		}
		return data
	})
	home := t.TempDir()
	_, errs, code := coreWith(t, home, []string{"OPENHUMAN_MEMORY_MAX_RESTORE_MB=1"}, nil, "restore", padded)
	if code != 1 {
		t.Fatalf("restore past the limit: exit %d, want 1", code)
	}
	mustContain(t, errs, "more than a restore may write (1048576 bytes): to restore it, raise memory.max_restore_mb (now 1 MiB) in config.toml, or set OPENHUMAN_MEMORY_MAX_RESTORE_MB")
	if left, _ := os.ReadDir(home); len(left) > 0 {
		t.Errorf("a refused restore left %v in the home", left)
	}
}

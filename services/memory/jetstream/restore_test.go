package jetstream

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// A new replica restores from the newest snapshot, written whole where it
// asked and nothing beside it, or not at all; with no snapshot yet, it is told so at once.
func TestRestore(t *testing.T) {
	j := mustJournal(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dir := t.TempDir()
	if _, ok, err := j.Restore(ctx, filepath.Join(dir, "none.db")); err != nil || ok {
		t.Fatalf("an empty bucket: ok %v, %v; want no snapshot and no error", ok, err)
	}
	// The follower uploads a snapshot after each event it applies.
	st, _ := mustReplica(t, j)
	run(t, j.NewFollower("memory-a", st, FollowOptions{SnapshotEvery: 1, TempDir: t.TempDir()}))
	if _, err := st.Put(ctx, []memory.Item{note("Restored from a snapshot.")}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "memory.db")
	var seq uint64
	for ok := false; !ok; {
		var err error
		if seq, ok, err = j.Restore(ctx, path); err != nil {
			t.Fatal(err)
		}
		if !ok {
			select {
			case <-ctx.Done():
				t.Fatal("no snapshot to restore after 20 s")
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	if seq == 0 {
		t.Fatal("restored a snapshot of sequence 0")
	}
	restored, err := os.ReadFile(path)
	if err != nil || len(restored) == 0 {
		t.Fatalf("restored file: %d bytes, %v", len(restored), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the restore left %d files in its folder, want the database alone", len(entries))
	}
	// A snapshot that cannot be written whole leaves no database behind
	// for the next start to open: here its part file cannot be made.
	cut := filepath.Join(t.TempDir(), "memory.db")
	if err := os.Mkdir(cut+".restoring", 0o700); err != nil {
		t.Fatal(err)
	}
	if _, _, err := j.Restore(ctx, cut); err == nil {
		t.Error("a restore whose file could not be written succeeded")
	}
	if _, err := os.Stat(cut); !os.IsNotExist(err) {
		t.Errorf("a restore cut short left %s (%v)", cut, err)
	}
}

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
// asked and nothing beside it; with no snapshot yet, it is told so at once.
func TestRestore(t *testing.T) {
	j := mustJournal(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dir := t.TempDir()
	if _, ok, err := j.Restore(ctx, filepath.Join(dir, "none.db")); err != nil || ok {
		t.Fatalf("an empty bucket: ok %v, %v; want no snapshot and no error", ok, err)
	}
	st, _ := mustReplica(t, j)
	f := j.NewFollower("memory-a", st, FollowOptions{TempDir: t.TempDir()})
	run(t, f)
	if _, err := st.Put(ctx, []memory.Item{note("Restored from a snapshot.")}); err != nil {
		t.Fatal(err)
	}
	if err := f.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "memory.db")
	seq, ok, err := j.Restore(ctx, path)
	if err != nil || !ok || seq == 0 {
		t.Fatalf("Restore = %d, %v, %v; want the snapshot", seq, ok, err)
	}
	restored, err := os.ReadFile(path)
	if err != nil || len(restored) == 0 {
		t.Fatalf("restored file: %d bytes, %v", len(restored), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the restore left %d files in its folder, want the database alone", len(entries))
	}
}

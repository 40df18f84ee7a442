package hfhub

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// TestProgressInspectRemove: a fetch reports each file's bytes up to its
// size; Inspect lists what it left, names a changed file, and Remove
// takes it all away.
func TestProgressInspectRemove(t *testing.T) {
	hub := newFakeHub(t)
	c := mustClient(t, hub.srv.URL)
	var mu sync.Mutex
	last := map[string]Progress{}
	c.Progress = func(p Progress) { mu.Lock(); last[p.File] = p; mu.Unlock() }
	repo := testRepoFiles(nil)
	if _, err := c.Inspect(repo); contract.ErrorCode(err) != contract.CodeNotFound {
		t.Fatalf("before a fetch: %v", err)
	}
	dir, err := c.Fetch(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	for p, data := range hub.files {
		if got := last[p]; got.Done != int64(len(data)) || got.Total != int64(len(data)) || got.Repo != testRepo {
			t.Errorf("%s: last progress %+v, want %d of %d", p, got, len(data), len(data))
		}
	}
	l, err := c.Inspect(repo)
	if err != nil || l.Commit != testCommit || l.Dir != dir || len(l.Files) != 3 {
		t.Fatalf("%+v %v", l, err)
	}
	for _, f := range l.Files {
		if f.Err != nil || f.Size != int64(len(hub.files[f.Path])) || f.SHA256 != sha(hub.files[f.Path]) {
			t.Errorf("%+v", f)
		}
	}
	os.WriteFile(filepath.Join(dir, "vocab.txt"), []byte("changed\n"), 0o644)
	l, _ = c.Inspect(repo)
	for _, f := range l.Files {
		if (f.Err != nil) != (f.Path == "vocab.txt") {
			t.Errorf("%s: %v", f.Path, f.Err)
		}
	}
	if err := c.Remove(repo); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(c.Dir); len(entries) != 0 {
		t.Errorf("left %v", entries)
	}
	if err := c.Remove(repo); err != nil {
		t.Errorf("removing twice: %v", err)
	}
}

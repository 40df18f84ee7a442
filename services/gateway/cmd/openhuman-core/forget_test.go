package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// An ingest is taken back in one step, by the folder given as it was to
// ingest (relative here): a dry run counts, then the items go, and a
// note learned beside them stays; ids and a workspace work the same way.
func TestForgetWhatWasIngested(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{
		"manual/intro.md": "# Intro\n\nThe program keeps a region of memory that lives throughout its life.\n",
		"manual/usage.md": "# Usage\n\nRun it with a file name; it prints what it found.\n",
		"other/keep.md":   "# Keep\n\nThis file is not under the manual folder.\n",
		"manual2/also.md": "# Also\n\nA folder whose name begins like manual's.\n",
	})
	mustCore(t, home, "ingest", "--workspace", "docs", root)
	mustCore(t, home, "call", "memory.learn", `{"text":"I live in Porto."}`)
	before := strings.Count(mustCore(t, home, "call", "memory.list", `{"limit":100}`), `"id":`)

	manual := filepath.Join(root, "manual")
	out := mustCore(t, home, "forget", "--source", manual, "--dry-run")
	if !strings.HasPrefix(out, "would forget 2 items; nothing was forgotten") {
		t.Fatalf("dry run: %q", out)
	}
	if n := strings.Count(mustCore(t, home, "call", "memory.list", `{"limit":100}`), `"id":`); n != before {
		t.Fatalf("a dry run forgot %d items", before-n)
	}
	if out := mustCore(t, home, "forget", "--source", manual); !strings.HasPrefix(out, "forgot 2 items") {
		t.Fatalf("forget --source: %q", out)
	}
	listed := mustCore(t, home, "call", "memory.list", `{"limit":100}`)
	for _, gone := range []string{"region of memory", "prints what it found"} {
		if strings.Contains(listed, gone) {
			t.Errorf("%q is still stored", gone)
		}
	}
	for _, kept := range []string{"I live in Porto.", "not under the manual folder", "begins like manual's"} {
		if !strings.Contains(listed, kept) {
			t.Errorf("%q was forgotten too", kept)
		}
	}
	if out := mustCore(t, home, "forget", "--workspace", "docs"); !strings.HasPrefix(out, "forgot 2 items") {
		t.Fatalf("forget --workspace: %q", out)
	}
	if _, errs, code := core(t, home, "forget"); code != 2 || !strings.Contains(errs, "forget needs item ids, or --source PATH") {
		t.Errorf("forget with nothing: %d %q", code, errs)
	}
	if out := mustCore(t, home, "forget", "nosuchid"); !strings.HasPrefix(out, "forgot 0 items (1 id not found)") {
		t.Errorf("forget of an unknown id: %q", out)
	}
}

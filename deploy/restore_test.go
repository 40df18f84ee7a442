package deploy

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// restoreFromOneBackup: the stack's memory, backed up while it serves
// (make backup-local), comes back on fresh volumes (make restore-local)
// with every memory replica holding every item, and /rpc listing each
// once. It runs last: it replaces every volume of the stack.
func (s *stack) restoreFromOneBackup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tag := runTag("restore")
	var texts []string
	for i := range 12 {
		text := fmt.Sprintf("Restore test %s: note %d survives a restore onto fresh volumes.", tag, i)
		var learned learnResult
		if err := s.rpc(ctx, "openhuman.memory_learn", map[string]any{"text": text}, &learned); err != nil {
			t.Fatalf("learn: %v", err)
		}
		texts = append(texts, text)
	}
	file := filepath.Join(t.TempDir(), "stack.jsonl")
	if out, err := exec.Command("../scripts/compose-local.sh", "backup", file).CombinedOutput(); err != nil {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	backup, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range append([]string{fact}, texts...) {
		if !bytes.Contains(backup, []byte(text)) {
			t.Fatalf("the backup lacks %q", text)
		}
	}
	lines := bytes.Count(backup, []byte("\n"))

	out, err := exec.Command("../scripts/compose-local.sh", "restore", file).CombinedOutput()
	if err != nil {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	if want := fmt.Sprintf("imported %d lines: %d stored, 0 already present, 0 refused", lines, lines); !strings.Contains(string(out), want) {
		t.Fatalf("restore said:\n%s\nwant %q", out, want)
	}
	s.waitReady(60 * time.Second)
	for _, r := range []string{"memory-1", "memory-2"} {
		deadline := time.Now().Add(60 * time.Second)
		for {
			data := docker(t, "cp", s.container(t, r)+":/data", "-")
			missing := 0
			for _, text := range append([]string{fact}, texts...) {
				if !bytes.Contains(data, []byte(text)) {
					missing++
				}
			}
			if missing == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s lacks %d of the %d items checked after the restore", r, missing, len(texts)+1)
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	counts, err := s.listed(ctx, tag)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range texts {
		if counts[text] != 1 {
			t.Errorf("/rpc lists %q %d times after the restore, want once", text, counts[text])
		}
	}
	t.Logf("restored %d items from one backup; both replicas hold them", lines)
}

package ingest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

func write(t *testing.T, root, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWalk(t *testing.T) {
	root := t.TempDir()
	write(t, root, ".gitignore", []byte("*.log\nbuild/\n"))
	write(t, root, "README.md", []byte("# Project\nHello.\n"))
	write(t, root, "cmd/main.go", []byte("package main\nfunc main() {}\n"))
	write(t, root, "app.log", []byte("noise"))
	write(t, root, "build/out.txt", []byte("artifact"))
	write(t, root, "web/.gitignore", []byte("!keep.log\ndist/\n"))
	write(t, root, "web/keep.log", []byte("kept"))
	write(t, root, "web/dist/bundle.js", []byte("x"))
	write(t, root, "img.png", []byte{0x89, 'P', 'N', 'G', 0, 0, 1})
	write(t, root, "latin1.txt", []byte{'c', 'a', 'f', 0xe9})
	write(t, root, "big.txt", []byte(strings.Repeat("x", 2000)))
	write(t, root, ".git/config", []byte("[core]"))

	mem := mustStartMemory(t, 0)
	st, err := Walk(context.Background(), []string{root}, Options{MaxFileBytes: 1000, MaxRequestBytes: 5 << 10}, mem.send, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, batches := mem.sent, mem.calls
	var names []string
	for _, f := range got {
		names = append(names, f.DisplayName)
		if f.SourceKind != "folder" || f.Workspace != filepath.Base(root) || !filepath.IsAbs(f.SourceID) {
			t.Errorf("%+v", f)
		}
	}
	sort.Strings(names)
	if strings.Join(names, " ") != ".gitignore README.md cmd/main.go web/.gitignore web/keep.log" {
		t.Errorf("stored %v", names)
	}
	if st.Binary != 2 || st.TooLarge != 1 || st.Ignored != 3 || st.Stored != 5 || len(st.Failures) != 0 || batches < 2 {
		t.Errorf("stats %+v, %d batches", st, batches)
	}
	for _, f := range got {
		switch f.DisplayName {
		case "README.md":
			if f.Language != "markdown" || f.Folder != "" {
				t.Errorf("%+v", f)
			}
		case "cmd/main.go":
			if f.Language != "go" || f.Folder != "cmd" || f.FilePath != "cmd/main.go" {
				t.Errorf("%+v", f)
			}
		}
	}
}

func TestWalkGitRepoAndSingleFile(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	write(t, root, "docs/guide.md", []byte("# Guide\n"))
	for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "https://user:token@github.com/acme/tools.git"},
		{"add", "."}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	head, _ := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	mem := mustStartMemory(t, 0)
	_, err := Walk(context.Background(), []string{filepath.Join(root, "docs", "guide.md")}, Options{}, mem.send, nil)
	got := mem.sent
	if err != nil || len(got) != 1 {
		t.Fatalf("%v %v", got, err)
	}
	f := got[0]
	if f.SourceKind != "file" || f.Repo != "https://github.com/acme/tools" || f.Commit != strings.TrimSpace(string(head)) || f.FilePath != "docs/guide.md" || f.Workspace != "docs" {
		t.Errorf("%+v", f)
	}
}

func TestLanguage(t *testing.T) {
	for path, want := range map[string]string{"a/b.go": "go", "README.md": "markdown", "x.TSX": "typescript", "Dockerfile": "dockerfile", "notes": "text", "c.yml": "yaml"} {
		if got := Language(path); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
}

// TestWalkWorkspace: --workspace names the workspace of a folder's files
// and of a file named alone; a name that is no workspace name is refused
// before anything is read, and a folder whose own name is none fails,
// saying to pass one.
func TestWalkWorkspace(t *testing.T) {
	root := t.TempDir()
	write(t, root, "notes/a.md", []byte("# A\n"))
	long := strings.Repeat("n", 129)
	write(t, root, long+"/b.md", []byte("# B\n"))
	mem := mustStartMemory(t, 0)
	ctx := context.Background()

	if _, err := Walk(ctx, []string{filepath.Join(root, "notes"), filepath.Join(root, "notes", "a.md")}, Options{Workspace: "work"}, mem.send, nil); err != nil {
		t.Fatal(err)
	}
	if len(mem.sent) != 2 || mem.sent[0].Workspace != "work" || mem.sent[1].Workspace != "work" {
		t.Errorf("sent %+v, want both in workspace work", mem.sent)
	}

	for _, bad := range []string{"../../x", "a\x00b", strings.Repeat("w", 1024)} {
		st, err := Walk(ctx, []string{filepath.Join(root, "notes")}, Options{Workspace: bad}, mem.send, nil)
		if e := contract.AsError(err); contract.ErrorCode(err) != contract.CodeInvalidRequest || e.Data["field"] != "workspace" ||
			!strings.Contains(e.Message, "a workspace name is 1 to 128 printable characters") || st.Seen != 0 {
			t.Errorf("--workspace %.20q: %+v %v", bad, st, err)
		}
	}

	sent := len(mem.sent)
	st, err := Walk(ctx, []string{filepath.Join(root, long), filepath.Join(root, long, "b.md")}, Options{}, mem.send, nil)
	if err != nil || len(st.Failures) != 2 || len(mem.sent) != sent {
		t.Fatalf("%+v %v", st, err)
	}
	for _, f := range st.Failures {
		if !strings.Contains(f.Reason, "the folder's name cannot be its workspace (the workspace name is 129 characters long") || !strings.Contains(f.Reason, "pass --workspace NAME") {
			t.Errorf("%+v", f)
		}
	}
}

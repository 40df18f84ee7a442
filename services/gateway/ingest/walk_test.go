package ingest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
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

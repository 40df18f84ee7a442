//go:build unix

package sqlitefile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestPrivate(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o022))
	mode := func(p string) os.FileMode {
		t.Helper()
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return info.Mode().Perm()
	}
	root := t.TempDir()
	path := filepath.Join(root, "a", "b", "memory.db")
	if err := Private(path); err != nil {
		t.Fatal(err)
	}
	if mode(path) != 0o600 || mode(filepath.Dir(path)) != 0o700 || mode(filepath.Join(root, "a")) != 0o700 {
		t.Errorf("new: file %#o, directories %#o %#o", mode(path), mode(filepath.Dir(path)), mode(filepath.Join(root, "a")))
	}

	// A file left by an older version, and its WAL, are closed; the
	// directory is not the file's to change.
	old := filepath.Join(root, "old")
	os.Mkdir(old, 0o755)
	path = filepath.Join(old, "audit.db")
	for _, p := range []string{path, path + "-wal"} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Private(path); err != nil {
		t.Fatal(err)
	}
	if mode(path) != 0o600 || mode(path+"-wal") != 0o600 || mode(old) != 0o755 {
		t.Errorf("old: %#o %#o, directory %#o", mode(path), mode(path+"-wal"), mode(old))
	}
	if b, _ := os.ReadFile(path); string(b) != "x" {
		t.Error("an existing file was truncated")
	}

	if tightened, err := PrivateDir(old); err != nil || !tightened || mode(old) != 0o700 {
		t.Errorf("PrivateDir of a 0755 directory: %v %v %#o", tightened, err, mode(old))
	}
	if tightened, err := PrivateDir(old); err != nil || tightened {
		t.Errorf("PrivateDir again: %v %v", tightened, err)
	}
	if _, err := PrivateDir(path); err == nil {
		t.Error("PrivateDir of a file")
	}
	for _, p := range []string{"", ":memory:"} { // a database SQLite keeps of its own
		if err := Private(p); err != nil {
			t.Errorf("Private(%q): %v", p, err)
		}
	}
}

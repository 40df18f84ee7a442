package sqlitefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Private readies path for SQLite so that only its owner may read it: the
// directory is made 0700 when it is created, and the file is created 0600
// before SQLite opens it. SQLite gives the -wal, -shm and -journal files
// it makes beside a database the database's mode, so they are 0600 too;
// left to itself it makes the database 0644. A file of an older version,
// or one restored by a copy, is made 0600 along with those beside it.
func Private(path string) error {
	if path == "" || path == ":memory:" { // SQLite's temporary and in-memory databases
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		f.Close()
	} else if !errors.Is(err, fs.ErrExist) { // another process made it first
		return err
	}
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		if err := ownerOnly(p, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// PrivateDir makes dir, or an existing dir readable by others, 0700, and
// reports whether it had to tighten an existing one.
func PrivateDir(dir string) (tightened bool, err error) {
	info, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, os.MkdirAll(dir, 0o700)
	}
	if err != nil {
		return false, err
	}
	if !info.IsDir() {
		return false, fmt.Errorf("%s is not a directory", dir)
	}
	return info.Mode().Perm()&0o077 != 0, ownerOnly(dir, 0o700)
}

// ownerOnly takes group and other permissions off path, when it exists.
func ownerOnly(path string, mode fs.FileMode) error {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil || info.Mode().Perm()&0o077 == 0 {
		return err
	}
	if err := os.Chmod(path, mode); err != nil {
		return fmt.Errorf("%s is readable by others (%#o) and could not be made %#o: %w; chmod it yourself", path, info.Mode().Perm(), mode, err)
	}
	return nil
}

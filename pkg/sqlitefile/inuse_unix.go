//go:build unix

package sqlitefile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// dmsByte is the byte of a WAL database's shared-memory file (path-shm)
// that every connection holds a read lock on for as long as it is open
// (UNIX_SHM_DMS in SQLite's os_unix.c: after the 120 bytes of the
// WAL-index header and the 8 lock bytes): a write lock on it is granted
// only when no other process has the database open.
const dmsByte = 128

// InUse reports whether another process has the WAL database at path
// open. Locks this process holds do not count (POSIX locks are per
// process): close its own connections first.
func InUse(path string) (bool, error) {
	f, err := os.OpenFile(path+"-shm", os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: dmsByte, Len: 1}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil {
		return false, err
	}
	return lk.Type != syscall.F_UNLCK, nil
}

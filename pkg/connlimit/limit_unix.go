//go:build unix

package connlimit

import "syscall"

// Default is half the process's file-descriptor limit, at most 8,192: the
// other half is for everything else the process opens. (Go raises the
// soft limit to the hard one at start.)
func Default() int {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil || l.Cur == 0 {
		return fallback
	}
	return int(min(l.Cur/2, 8192))
}

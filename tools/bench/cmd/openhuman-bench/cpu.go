package main

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// processCPU is the user and system CPU time process pid has used, read
// from /proc; 0 where there is no such file.
func processCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	return statCPU(b)
}

// statCPU reads the CPU time from the text of /proc/<pid>/stat.
func statCPU(b []byte) time.Duration {
	// "pid (comm) state ppid ...": comm may hold spaces, so count fields
	// after its closing parenthesis; utime and stime are fields 14 and 15.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0
	}
	utime, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	stime, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	const userHZ = 100 // /proc counts in clock ticks of 1/100 s on Linux
	return time.Duration(utime+stime) * time.Second / userHZ
}

// selfCPU is the CPU time this process has used, to the microsecond:
// /proc counts in ticks of 10 ms, and a short, light run (a few learns
// from two clients) can spend less than one.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return processCPU(os.Getpid())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

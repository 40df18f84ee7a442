package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestMakeRun checks, without running them, the commands `make run` runs:
// ADDR reaches serve --addr, and without it serve keeps its default.
func TestMakeRun(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ADDR=127.0.0.1:9400"}, "/openhuman-core serve --addr 127.0.0.1:9400\n"},
		{nil, "/openhuman-core serve\n"},
	} {
		cmd := exec.Command("make", append([]string{"-n", "-C", "../../../..", "run"}, tc.args...)...)
		cmd.Env = append(testEnv(t.TempDir()), "MAKEFLAGS=")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("make -n run %v: %v", tc.args, err)
		}
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("make run %v runs\n%s\nwant a line ending in %q", tc.args, out, tc.want)
		}
	}
}

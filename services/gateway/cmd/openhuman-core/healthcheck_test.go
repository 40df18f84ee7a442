package main

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
)

// healthcheck runs `bin healthcheck args...` as a container runtime does and
// returns its exit status and stderr; a healthy one must say so on stdout.
func healthcheck(t *testing.T, home, bin string, args []string, env ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, bin), append([]string{"healthcheck"}, args...)...)
	cmd.Env = testEnv(home, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		if !strings.HasPrefix(stdout.String(), "healthy: http://") || !strings.Contains(stdout.String(), "/readyz answered 200") {
			t.Errorf("%s healthcheck passed saying %q on stdout", bin, stdout.String())
		}
		return 0, stderr.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), stderr.String()
	}
	t.Fatal(err)
	return 0, ""
}

// waitHealthy polls a healthcheck until it passes.
func waitHealthy(t *testing.T, home, bin string, args []string, env ...string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		code, stderr := healthcheck(t, home, bin, args, env...)
		if code == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s healthcheck still fails after 15s: %s", bin, stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// The healthcheck subcommands of the images' HEALTHCHECK: 0 once the
// gateway's /readyz, or a service's own /readyz, answers 200; 1 with one
// line saying why otherwise, including a memory replica whose database
// cannot be opened although its process runs and is registered.
func TestHealthcheck(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	home := t.TempDir()

	base := startServe(t, home)
	waitHealthy(t, home, "openhuman-core", []string{"--addr", strings.TrimPrefix(base, "http://")})
	code, stderr := healthcheck(t, home, "openhuman-core", []string{"--addr", freePort(t)})
	if code != 1 || !strings.HasPrefix(stderr, "unhealthy: http://127.0.0.1:") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("gateway healthcheck with nothing listening: exit %d, stderr %q; want 1 and one line", code, stderr)
	}

	good := freePort(t)
	startService(t, "openhuman-memory", t.TempDir(), ns.ClientURL(), "OPENHUMAN_METRICS_ADDR="+good)
	waitHealthy(t, home, "openhuman-memory", nil, "OPENHUMAN_METRICS_ADDR="+good)

	// A directory where the database should be: the replica runs and
	// answers MEMORY_OFF, but must not be taken for ready.
	bad := freePort(t)
	startService(t, "openhuman-memory", t.TempDir(), ns.ClientURL(), "OPENHUMAN_METRICS_ADDR="+bad,
		"OPENHUMAN_MEMORY_PATH="+t.TempDir())
	deadline := time.Now().Add(15 * time.Second)
	for {
		code, stderr = healthcheck(t, home, "openhuman-memory", nil, "OPENHUMAN_METRICS_ADDR="+bad)
		if strings.Contains(stderr, "memory store off") || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code != 1 || !strings.Contains(stderr, "answered 503 Service Unavailable: not ready: memory store off: memory is off: cannot open") ||
		strings.Count(stderr, "\n") != 1 {
		t.Errorf("memory healthcheck with an unusable database: exit %d, stderr %q", code, stderr)
	}
}

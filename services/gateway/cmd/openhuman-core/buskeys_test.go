package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
)

// TestBusKeys makes a set of keys with `buskeys`, runs memory and the
// gateway's call command on them as a deployment would, and checks that a
// service without the gateway's key refuses to start, and that a gateway
// signing with another seed is refused.
func TestBusKeys(t *testing.T) {
	code, out, stderr := runBinary(t, t.TempDir(), nil, "buskeys")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	keys := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			keys[k] = v
		}
	}
	for _, k := range []string{"BUS_GATEWAY_SEED", "BUS_AGENTS_SEED", "OPENHUMAN_BUS_GATEWAY_KEY", "OPENHUMAN_BUS_AGENTS_KEY"} {
		if keys[k] == "" {
			t.Fatalf("buskeys printed no %s:\n%s", k, out)
		}
	}
	ns, err := embedded.Start(embedded.Options{Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	trust := []string{"OPENHUMAN_BUS_GATEWAY_KEY=" + keys["OPENHUMAN_BUS_GATEWAY_KEY"], "OPENHUMAN_BUS_AGENTS_KEY=" + keys["OPENHUMAN_BUS_AGENTS_KEY"]}

	refused := func(t *testing.T, bin, want string, env ...string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(binDir, bin))
		cmd.Env = testEnv(t.TempDir(), append([]string{"OPENHUMAN_NATS_URL=" + ns.ClientURL(), "OPENHUMAN_METRICS_ADDR=off"}, env...)...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		code, exited := waitExit(cmd, 30*time.Second)
		if !exited || code == 0 || !strings.Contains(errb.String(), want) {
			t.Fatalf("exit %d (exited %v), stderr %s; want a refusal naming the setting", code, exited, errb.String())
		}
	}
	t.Run("a service without the gateway's key does not start", func(t *testing.T) {
		refused(t, "openhuman-memory", "bus.gateway_key (OPENHUMAN_BUS_GATEWAY_KEY) is not set", "OPENHUMAN_BUS_GATEWAY_KEY=")
	})
	t.Run("the agents service without its seed does not start", func(t *testing.T) {
		refused(t, "openhuman-agents", "bus.signing_seed (OPENHUMAN_BUS_SIGNING_SEED) is not set: give it the agents service's seed",
			trust[0], trust[1], "OPENHUMAN_BUS_SIGNING_SEED=")
	})

	startService(t, "openhuman-memory", t.TempDir(), ns.ClientURL(), append(trust, "OPENHUMAN_METRICS_ADDR=127.0.0.1:0")...)
	waitForService(t, ns.ClientURL(), "memory")
	home := t.TempDir()
	call := func(seed string, args ...string) (int, string, string) {
		return runBinary(t, home, append(trust, "OPENHUMAN_NATS_URL="+ns.ClientURL(), "OPENHUMAN_BUS_SIGNING_SEED="+seed), append([]string{"call"}, args...)...)
	}
	if code, out, stderr := call(keys["BUS_GATEWAY_SEED"], "memory.learn", `{"text":"The keys buskeys prints sign calls."}`); code != 0 || !strings.Contains(out, `"id"`) {
		t.Fatalf("learn with the printed keys: exit %d, %s %s", code, out, stderr)
	}
	// The agents service's seed is not the gateway's: memory refuses it.
	code, _, stderr = call(keys["BUS_AGENTS_SEED"], "memory.list")
	if code == 0 || !strings.Contains(stderr, "the call's context is not signed by the gateway") {
		t.Fatalf("a call signed with the agents seed as root: exit %d, %s", code, stderr)
	}
}

//go:build unix

package embedded_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/embedded"
)

// TestHomeIsPrivate: under the usual umask (022), a start in a home that
// exists and is 0755 leaves the home 0700 and every file in it 0600:
// memory.db and audit.db with their WAL and shared-memory files, the audit
// key, anything else. A home an older version left open is closed the
// same way on the next start.
func TestHomeIsPrivate(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o022))
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	start := func() *embedded.System {
		t.Helper()
		cfg, err := config.Load(home, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		sys, err := embedded.Start(cfg, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		gw := gateway.New(bus.NewClient(sys.NC, sys.Signer), sys.GatewayOptions(cfg))
		// A write: memory's and the audit's WAL and shared memory exist.
		if _, err := gw.CallTool(ctx, "memory.learn", json.RawMessage(`{"text":"The home is private."}`), contract.CallContext{Source: "cli"}); err != nil {
			t.Fatal(err)
		}
		return sys
	}
	check := func(when string, want ...string) {
		t.Helper()
		var files []string
		err := filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			want := fs.FileMode(0o600)
			if d.IsDir() {
				want = 0o700
			} else {
				files = append(files, d.Name())
			}
			if info.Mode().Perm() != want {
				t.Errorf("%s: %s is %#o, want %#o", when, path, info.Mode().Perm(), want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range want {
			if !slices.Contains(files, name) {
				t.Errorf("%s: no %s in the home (%v): the test does not see what it checks", when, name, files)
			}
		}
	}

	open := []string{"memory.db", "memory.db-wal", "memory.db-shm", "audit.db", "audit.db-wal", "audit.db-shm", "audit.key"}
	sys := start()
	check("a fresh start in an existing 0755 home", open...)
	sys.Close()
	check("after closing", "memory.db", "audit.db", "audit.key")

	// What an older version left: everything readable by others.
	_ = filepath.WalkDir(home, func(path string, d fs.DirEntry, _ error) error {
		mode := fs.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		return os.Chmod(path, mode)
	})
	sys = start()
	check("a start in an older home", open...)
	sys.Close()
}

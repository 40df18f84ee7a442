package audit_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
	"github.com/openhuman-go/openhuman-go/pkg/audit/audittest"
	"github.com/openhuman-go/openhuman-go/pkg/audit/sqlite"
)

func TestLoadKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", audit.KeyFile)
	// Processes started together agree on one key.
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			k, err := audit.LoadKey(path)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		})
	}
	wg.Wait()
	for _, k := range keys[1:] {
		if string(k) != string(keys[0]) || len(k) != 32 {
			t.Fatalf("keys differ: %x %x", keys[0], k)
		}
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v, %v; want mode 0600", info, err)
	}
	if left, _ := filepath.Glob(path + ".*"); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	os.Chmod(path, 0o644)
	if again, err := audit.LoadKey(path); err != nil || string(again) != string(keys[0]) {
		t.Fatalf("reloading: %v", err)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("a key readable by others stays so: %v", info.Mode())
	}
	os.WriteFile(path, []byte("not a key\n"), 0o600)
	if _, err := audit.LoadKey(path); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "delete it") {
		t.Fatalf("a damaged key: %v", err)
	}
}

func TestPseudonym(t *testing.T) {
	k1, k2 := []byte(strings.Repeat("k", 32)), []byte(strings.Repeat("q", 32))
	p := audit.Pseudonym(k1, "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d")
	if !audit.IsPseudonym(p) || p != audit.Pseudonym(k1, "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d") || strings.Contains(p, "3f2a9c1d") {
		t.Fatalf("pseudonym %q", p)
	}
	if p == audit.Pseudonym(k2, "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d") {
		t.Error("another key gives the same pseudonym")
	}
	if audit.Pseudonym(nil, "x") != "" || audit.Pseudonym(k1, "") != "" {
		t.Error("no key or no id must keep nothing")
	}
}

// The recorder hands backends the HMAC, never the id; without a key,
// nothing.
func TestRecorderKeepsNoPlainID(t *testing.T) {
	l, err := sqlite.Open(filepath.Join(t.TempDir(), "audit.db"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	key := []byte(strings.Repeat("k", 32))
	audit.NewRecorder(l, nil, key).Record(context.Background(), audittest.Row(1, true))
	audit.NewRecorder(l, nil, nil).Record(context.Background(), audittest.Row(2, true))
	rows, err := l.Recent(context.Background(), 10, false)
	if err != nil || len(rows) != 2 {
		t.Fatalf("%+v %v", rows, err)
	}
	if rows[1].ResultingID != audit.Pseudonym(key, "id1") || rows[0].ResultingID != "" {
		t.Fatalf("resulting ids %q and %q", rows[1].ResultingID, rows[0].ResultingID)
	}
}

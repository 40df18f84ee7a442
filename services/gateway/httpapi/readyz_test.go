package httpapi_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite/sqlitetest"
)

// homeWithMemory is a home whose memory holds learnings, written and
// closed before the test's system starts on it.
func homeWithMemory(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	sqlitetest.WriteItems(t, filepath.Join(home, "memory.db"), 300)
	return home
}

// readyzChecked reads /readyz once the memory store's integrity check has
// ended.
func readyzChecked(t *testing.T, url string) (int, gateway.Readiness) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		var r gateway.Readiness
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if r.MemoryStore != nil && r.MemoryStore.State != contract.StoreChecking {
			return resp.StatusCode, r
		}
		if time.Now().After(deadline) {
			t.Fatalf("memory's integrity check has not ended after 30 s: %+v", r)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestReadyzChecksTheMemoryStore: a memory service whose SQLite file is
// damaged answers pings, but the gateway is not ready, and says why and
// what to do.
func TestReadyzChecksTheMemoryStore(t *testing.T) {
	t.Run("a sound file is ready", func(t *testing.T) {
		ts := serveGateway(t, gatewaytest.StartIn(t, homeWithMemory(t), nil, gateway.Options{}))
		code, r := readyzChecked(t, ts.URL)
		if code != http.StatusOK || r.Status != gateway.ReadyOK || r.Services[contract.ServiceMemory] != "ok" || !r.MemoryStore.OK {
			t.Fatalf("readyz %d %+v", code, r)
		}
	})
	t.Run("a damaged file is not", func(t *testing.T) {
		home := homeWithMemory(t)
		sqlitetest.DamageMiddlePage(t, filepath.Join(home, "memory.db"))
		ts := serveGateway(t, gatewaytest.StartIn(t, home, nil, gateway.Options{}))
		code, r := readyzChecked(t, ts.URL)
		why := r.Services[contract.ServiceMemory]
		if code != http.StatusServiceUnavailable || r.Status != gateway.ReadyNot || r.MemoryStore.State != contract.StoreDamaged ||
			!strings.Contains(why, "memory.db is damaged: database disk image is malformed") || !strings.Contains(why, "restore the file from a backup") {
			t.Fatalf("readyz %d %+v", code, r)
		}
		// Not ready is not dead: the gateway stays up for what does not
		// reach the damage.
		if resp, err := http.Get(ts.URL + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("healthz: %v %v", resp, err)
		} else {
			resp.Body.Close()
		}
	})
}

package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/readiness"
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
func readyzChecked(t *testing.T, url string) (int, readiness.Report) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		var r readiness.Report
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
		if code != http.StatusOK || r.Status != readiness.OK || r.Services[contract.ServiceMemory] != "ok" || !r.MemoryStore.OK {
			t.Fatalf("readyz %d %+v", code, r)
		}
	})
	t.Run("a damaged file is not", func(t *testing.T) {
		home := homeWithMemory(t)
		sqlitetest.DamageMiddlePage(t, filepath.Join(home, "memory.db"))
		ts := serveGateway(t, gatewaytest.StartIn(t, home, nil, gateway.Options{}))
		code, r := readyzChecked(t, ts.URL)
		why := r.Services[contract.ServiceMemory]
		if code != http.StatusServiceUnavailable || r.Status != readiness.NotReady || r.MemoryStore.State != contract.StoreDamaged ||
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

// TestReadyzSaysTheEmbeddingBacklog: items waiting for a vector leave the
// gateway ready and say so; an embedder that cannot be reached makes it
// degraded, with the error and the backoff, in /readyz and in /metrics.
func TestReadyzSaysTheEmbeddingBacklog(t *testing.T) {
	env := map[string]string{"OPENHUMAN_EMBEDDINGS_PROVIDER": "ollama", "OPENHUMAN_EMBEDDINGS_BASE_URL": "http://127.0.0.1:1",
		"OPENHUMAN_EMBEDDINGS_MODEL": "absent"}
	ts := serveGateway(t, gatewaytest.StartIn(t, homeWithMemory(t), env, gateway.Options{}))
	deadline := time.Now().Add(30 * time.Second)
	var r readiness.Report
	var code int
	for {
		code, r = readyzChecked(t, ts.URL)
		if r.Status == readiness.Degraded || time.Now().After(deadline) {
			break
		}
		if code != http.StatusOK || r.Status != readiness.OK || !strings.Contains(r.MemoryEmbedding, "300 items wait for a vector of ollama:absent") {
			t.Fatalf("before the embedder was tried: readyz %d %+v", code, r)
		}
		time.Sleep(20 * time.Millisecond)
	}
	e := r.MemoryStore.Embedding
	if code != http.StatusOK || r.Status != readiness.Degraded || e == nil || e.Pending != 300 || e.Failures < 1 ||
		e.BackoffSeconds < 1 || !strings.Contains(e.LastError, "127.0.0.1:1") ||
		!strings.HasPrefix(r.Services[contract.ServiceMemory], "degraded: 300 items wait") {
		t.Fatalf("with the embedder unreachable: readyz %d %+v %+v", code, r, e)
	}
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := io.Copy(&b, resp.Body); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`openhuman_memory_embedding_pending{model="ollama:absent"} 300`, `openhuman_memory_embedding_failures{model="ollama:absent"}`,
		`openhuman_memory_embedding_backoff_seconds{model="ollama:absent"}`, `openhuman_memory_embedding_last_error_timestamp_seconds{model="ollama:absent"}`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

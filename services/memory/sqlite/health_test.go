package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite/sqlitetest"
)

// checked waits for the integrity check run at open to end.
func checked(t *testing.T, s *sqlite.Store) contract.StoreHealth {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		h := s.Health()
		if h.State != contract.StoreChecking {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("the integrity check still runs after 30 s: %+v", h)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// storeWithItems is a closed store file holding n items, its WAL
// checkpointed into the file.
func storeWithItems(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memory.db")
	s := sqlite.New(path)
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	items := make([]memory.Item, n)
	for i := range items {
		items[i] = item(fmt.Sprintf("Item %d: a sentence long enough to fill pages of the file, about topic %d.", i, i%17), nil)
	}
	if _, err := s.Put(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	if err := s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestHealth(t *testing.T) {
	t.Run("a sound file is ok", func(t *testing.T) {
		s := mustOpenStore(t, storeWithItems(t, 500))
		if h := checked(t, s); !h.OK || h.State != contract.StoreOK || h.RecentErrors != 0 {
			t.Fatalf("health = %+v", h)
		}
	})
	t.Run("a damaged page makes the file damaged", func(t *testing.T) {
		path := storeWithItems(t, 500)
		sqlitetest.DamageMiddlePage(t, path)
		s := mustOpenStore(t, path)
		h := checked(t, s)
		if h.OK || h.State != contract.StoreDamaged || !strings.Contains(h.Detail, path) || !strings.Contains(h.Detail, "restore") {
			t.Fatalf("health = %+v", h)
		}
		// Queries that reach the page fail, and are counted.
		_, err := s.List(context.Background(), nil, 0, 1000)
		if contract.ErrorCode(err) != contract.CodeEngine {
			t.Fatalf("listing every item of a damaged file: %v", err)
		}
		if h := s.Health(); h.RecentErrors != 1 || h.LastError == "" {
			t.Errorf("after a failed query: %+v", h)
		}
	})
}

package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
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

// storeWithItems is a closed store file holding n items.
func storeWithItems(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memory.db")
	sqlitetest.WriteItems(t, path, n)
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
		ctx := context.Background()
		_, errList := s.List(ctx, nil, 0, 1000)
		_, errTop := s.TopEntities(ctx, "", 1000, nil)
		_, errSources := s.Sources(ctx, nil)
		_, _, errVectors := s.VectorChanges(ctx, localembed.NewGloveEmbedder(0).Model(), // the default WriteItems embeds with
			0, 0, func(int64, []float32) {}, func(int64) {})
		failed := 0
		for _, err := range []error{errList, errTop, errSources, errVectors} {
			if err != nil {
				if contract.ErrorCode(err) != contract.CodeEngine {
					t.Fatalf("reading a damaged file: %v", err)
				}
				failed++
			}
		}
		if failed == 0 {
			t.Fatal("reading items, entities, sources and vectors of a damaged file all succeeded")
		}
		if h := s.Health(); h.RecentErrors != failed || h.LastError == "" {
			t.Errorf("after %d failed reads: %+v", failed, h)
		}
	})
}

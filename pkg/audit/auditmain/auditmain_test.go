package auditmain_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
	"github.com/openhuman-go/openhuman-go/pkg/audit/auditmain"
	"github.com/openhuman-go/openhuman-go/pkg/audit/audittest"
	"github.com/openhuman-go/openhuman-go/pkg/audit/sqlite"
	"github.com/openhuman-go/openhuman-go/pkg/config"
)

func TestOpenChoosesTheBackend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.db")
	off := false
	t.Run("off", func(t *testing.T) {
		if rec, err := auditmain.Open(config.Config{Audit: config.Audit{Enabled: &off, Path: path}}, nil); rec != nil || err != nil {
			t.Fatalf("recorder %v, err %v; want neither", rec, err)
		}
	})
	t.Run("file", func(t *testing.T) {
		rec, err := auditmain.Open(config.Config{Audit: config.Audit{Path: path}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Close()
		if got := rec.Log().Backend(); got != "sqlite:"+path {
			t.Fatalf("backend %q", got)
		}
	})
	t.Run("malformed Redis URL", func(t *testing.T) {
		if _, err := auditmain.Open(config.Config{Audit: config.Audit{Path: path}, Redis: config.Redis{URL: "localhost:6379"}}, nil); err == nil {
			t.Fatal("no error")
		}
	})
}

// TestRedisDownRowsReachTheFile: the binaries' wiring gives the stream the
// audit file as its fallback, so a dead Redis loses no row.
func TestRedisDownRowsReachTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.db")
	cfg := config.Config{Audit: config.Audit{Path: path, MaxRows: 500}, Redis: config.Redis{URL: "redis://127.0.0.1:1/0", Prefix: "p:"}}
	rec, err := auditmain.Open(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "redis-stream:p:audit (max 500 rows; when Redis fails: sqlite:" + path + ")"
	if got := rec.Log().Backend(); got != want {
		t.Fatalf("backend %q, want %q", got, want)
	}
	rec.Record(context.Background(), audittest.Row(1, true))
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	file, err := sqlite.Open(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	// The id is kept as an HMAC under the key beside the file.
	key, err := audit.LoadKey(filepath.Join(filepath.Dir(path), audit.KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if rows, _ := file.Recent(context.Background(), 10, false); len(rows) != 1 || rows[0].ResultingID != audit.Pseudonym(key, "id1") {
		t.Fatalf("rows in the file: %+v", rows)
	}
}

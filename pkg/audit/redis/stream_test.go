package redis_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/audit/audittest"
	"github.com/openhuman-go/openhuman-go/pkg/audit/redis"
	"github.com/openhuman-go/openhuman-go/pkg/audit/sqlite"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn/redistest"
)

func TestStream(t *testing.T) {
	prefix := redistest.Prefix(t)
	c, err := redisconn.New(redistest.URL(), prefix, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fallback, _ := sqlite.Open(filepath.Join(t.TempDir(), "audit.db"), 0)
	s := redis.NewStream(c, 1000, fallback)
	defer s.Close()
	audittest.Check(t, s)
	if keys := redistest.Keys(t, prefix); len(keys) != 1 || keys[0] != prefix+"audit" {
		t.Fatalf("keys %v", keys)
	}
	if rows, _ := fallback.Recent(context.Background(), 10, false); len(rows) != 0 {
		t.Fatalf("rows went to the fallback while Redis answered: %v", rows)
	}
}

func TestRedisDownRowsGoToTheFile(t *testing.T) {
	c, err := redisconn.New("redis://127.0.0.1:1/0", "p:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fallback, _ := sqlite.Open(filepath.Join(t.TempDir(), "audit.db"), 0)
	s := redis.NewStream(c, 1000, fallback)
	defer s.Close()
	for i := range 3 {
		if err := s.Record(context.Background(), audittest.Row(i, true)); err != nil {
			t.Fatalf("a row was refused: %v", err)
		}
	}
	if rows, _ := fallback.Recent(context.Background(), 10, false); len(rows) != 3 {
		t.Fatalf("%d rows in the fallback file, want 3", len(rows))
	}
}

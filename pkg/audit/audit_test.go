package audit_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn/redistest"
)

func row(i int, ok bool) audit.Row {
	r := audit.Row{TimestampMS: int64(1000 + i), Client: "mcp:test", ToolName: "memory.learn",
		ArgsSummary: map[string]any{"text_length": i, "kind": "fact"}, ResultingID: fmt.Sprintf("id%d", i), Success: ok}
	if !ok {
		r.ErrorMessage = "Security policy: read-only mode, cannot perform 'memory.learn'"
		r.ResultingID = ""
	}
	return r
}

func checkLog(t *testing.T, l audit.Log) {
	t.Helper()
	ctx := context.Background()
	for i := range 10 {
		if err := l.Record(ctx, row(i, i%3 != 0)); err != nil {
			t.Fatal(err)
		}
	}
	recent, err := l.Recent(ctx, 3, false)
	if err != nil || len(recent) != 3 || recent[0].TimestampMS != 1009 || recent[1].ResultingID != "id8" || recent[1].ArgsSummary["text_length"] != float64(8) || recent[1].Client != "mcp:test" {
		t.Fatalf("recent %+v %v", recent, err)
	}
	failures, err := l.Recent(ctx, 10, true)
	if err != nil || len(failures) != 4 || failures[0].TimestampMS != 1009 || failures[3].TimestampMS != 1000 || failures[0].ErrorMessage == "" {
		t.Fatalf("failures %+v %v", failures, err)
	}
}

func TestSQLite(t *testing.T) {
	l, err := audit.OpenSQLite(filepath.Join(t.TempDir(), "audit.db"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	checkLog(t, l)
}

func TestSQLiteKeepsTheNewestRows(t *testing.T) {
	l, err := audit.OpenSQLite(filepath.Join(t.TempDir(), "audit.db"), 500)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range 3000 {
		if err := l.Record(context.Background(), row(i, true)); err != nil {
			t.Fatal(err)
		}
	}
	all, _ := l.Recent(context.Background(), 10000, false)
	if len(all) != 500 || all[0].ResultingID != "id2999" || all[499].ResultingID != "id2500" {
		t.Fatalf("%d rows kept, newest %s", len(all), all[0].ResultingID)
	}
}

func TestTwoWritersOfOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.db")
	a, err := audit.OpenSQLite(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := audit.OpenSQLite(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var wg sync.WaitGroup
	for _, l := range []audit.Log{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				if err := l.Record(context.Background(), row(i, true)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if all, _ := a.Recent(context.Background(), 1000, false); len(all) != 400 {
		t.Fatalf("%d rows, want 400", len(all))
	}
}

func TestRedisStream(t *testing.T) {
	prefix := redistest.Prefix(t)
	c, err := redisconn.New(redistest.URL(), prefix, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fallback, _ := audit.OpenSQLite(filepath.Join(t.TempDir(), "audit.db"), 0)
	s := audit.NewStream(c, 1000, fallback)
	defer s.Close()
	checkLog(t, s)
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
	fallback, _ := audit.OpenSQLite(filepath.Join(t.TempDir(), "audit.db"), 0)
	s := audit.NewStream(c, 1000, fallback)
	defer s.Close()
	for i := range 3 {
		if err := s.Record(context.Background(), row(i, true)); err != nil {
			t.Fatalf("a row was refused: %v", err)
		}
	}
	if rows, _ := fallback.Recent(context.Background(), 10, false); len(rows) != 3 {
		t.Fatalf("%d rows in the fallback file, want 3", len(rows))
	}
}

func TestSummarizeNeverHoldsContent(t *testing.T) {
	secret := "my bank PIN is 4321"
	for tool, args := range map[string]map[string]any{
		"memory.learn":       {"text": secret, "kind": "preference"},
		"memory.forget":      {"ids": []any{"a", "b"}},
		"agent.run_subagent": {"agent_id": "note_taker", "prompt": secret},
		"other":              {"text": secret},
	} {
		s := fmt.Sprint(audit.Summarize(tool, args))
		if strings.Contains(s, "4321") {
			t.Errorf("%s summary holds content: %s", tool, s)
		}
	}
	if got := audit.Summarize("memory.learn", map[string]any{"text": "héllo"}); got["text_length"] != 5 || got["kind"] != "fact" {
		t.Errorf("learn summary %v", got)
	}
	if got := audit.Summarize("memory.forget", map[string]any{"ids": []any{"a", "b"}}); got["id_count"] != 2 {
		t.Errorf("forget summary %v", got)
	}
}

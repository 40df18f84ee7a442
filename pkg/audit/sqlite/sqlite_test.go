package sqlite_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
	"github.com/openhuman-go/openhuman-go/pkg/audit/audittest"
	"github.com/openhuman-go/openhuman-go/pkg/audit/sqlite"
)

func TestLog(t *testing.T) {
	l, err := sqlite.Open(filepath.Join(t.TempDir(), "audit.db"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	audittest.Check(t, l)
}

func TestSQLiteKeepsTheNewestRows(t *testing.T) {
	l, err := sqlite.Open(filepath.Join(t.TempDir(), "audit.db"), 500)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range 3000 {
		if err := l.Record(context.Background(), audittest.Row(i, true)); err != nil {
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
	a, err := sqlite.Open(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := sqlite.Open(path, 0)
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
				if err := l.Record(context.Background(), audittest.Row(i, true)); err != nil {
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

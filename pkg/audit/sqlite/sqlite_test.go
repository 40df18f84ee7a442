package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// TestOpenAtOnce: every openhuman-core a client launches opens the audit
// file, often at the same moment; none may fail because another process
// holds the lock while switching a new file to WAL. The openers are
// processes (this test binary again): SQLite's locks are per process.
func TestOpenAtOnce(t *testing.T) {
	if path := os.Getenv("AUDIT_OPEN_AT_ONCE"); path != "" {
		l, err := sqlite.Open(path, 0)
		if err == nil {
			err = l.Record(context.Background(), audit.Row{Client: "mcp:test", ToolName: "memory.learn", Success: true})
			l.Close()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	for round := range 4 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("audit-%d.db", round))
		cmds := make([]*exec.Cmd, 8)
		outs := make([]bytes.Buffer, len(cmds))
		for i := range cmds {
			cmds[i] = exec.Command(os.Args[0], "-test.run=^TestOpenAtOnce$")
			cmds[i].Env = append(os.Environ(), "AUDIT_OPEN_AT_ONCE="+path)
			cmds[i].Stderr = &outs[i]
			if err := cmds[i].Start(); err != nil {
				t.Fatal(err)
			}
		}
		for i, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Fatalf("round %d, opener %d: %v: %s", round, i, err, outs[i].String())
			}
		}
		l, err := sqlite.Open(path, 0)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := l.Recent(context.Background(), 100, false)
		l.Close()
		if err != nil || len(rows) != len(cmds) {
			t.Fatalf("round %d: %d rows, %v; want one from each opener", round, len(rows), err)
		}
	}
}

// TestMigratesAnOlderFile: a file written before rows named their token
// keeps its rows (without their plain ids), and takes the token of new ones.
func TestMigratesAnOlderFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.db")
	old, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = old.Exec(`CREATE TABLE audit (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		timestamp_ms INTEGER NOT NULL,
		client TEXT NOT NULL,
		tool_name TEXT NOT NULL,
		args_summary TEXT NOT NULL,
		resulting_id TEXT NOT NULL DEFAULT '',
		success INTEGER NOT NULL,
		error_message TEXT NOT NULL DEFAULT ''
	);
	INSERT INTO audit (timestamp_ms, client, tool_name, args_summary, resulting_id, success) VALUES (7, 'mcp:old', 'memory.learn', '{}', 'id-old', 1)`)
	old.Close()
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second opening finds the file migrated
		l, err := sqlite.Open(path, 0)
		if err != nil {
			t.Fatal(err)
		}
		err = l.Record(context.Background(), audit.Row{TimestampMS: 8, Client: "http:ci", Token: "ci", ToolName: "memory.learn", Success: true})
		rows, rerr := l.Recent(context.Background(), 10, false)
		l.Close()
		if err != nil || rerr != nil {
			t.Fatal(err, rerr)
		}
		if last := rows[len(rows)-1]; last.ResultingID != "" || last.Token != "" || rows[0].Token != "ci" {
			t.Fatalf("rows %+v", rows)
		}
	}

	db, _ := sql.Open("sqlite", "file:"+path)
	_, err = db.Exec(`PRAGMA user_version = 99`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.Open(path, 0); err == nil || !strings.Contains(err.Error(), "newer than this binary knows") {
		t.Fatalf("a file of a newer schema: %v", err)
	}
}

// A file written when rows kept plain resulting ids loses them on open:
// blanked in the table and zeroed in the file; HMACs stay.
func TestOpenBlanksPlainIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.db")
	old, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	const plain = "8c1f3e5a7b9d0f2e4c6a8b0d2f4e6a8c"
	for _, stmt := range []string{
		`CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp_ms INTEGER NOT NULL, client TEXT NOT NULL,
			tool_name TEXT NOT NULL, args_summary TEXT NOT NULL, resulting_id TEXT NOT NULL DEFAULT '',
			success INTEGER NOT NULL, error_message TEXT NOT NULL DEFAULT '')`,
		`INSERT INTO audit (timestamp_ms, client, tool_name, args_summary, resulting_id, success) VALUES (1, 'mcp', 'memory.learn', '{}', '` + plain + `', 1)`,
		`INSERT INTO audit (timestamp_ms, client, tool_name, args_summary, resulting_id, success) VALUES (2, 'mcp', 'memory.learn', '{}', 'hmac:00ff', 1)`,
		`PRAGMA wal_checkpoint(TRUNCATE)`,
	} {
		if _, err := old.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()
	if b, _ := os.ReadFile(path); !bytes.Contains(b, []byte(plain)) {
		t.Fatal("the old file does not hold the id to begin with")
	}

	l, err := sqlite.Open(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := l.Recent(context.Background(), 10, false)
	if err != nil || len(rows) != 2 || rows[0].ResultingID != "hmac:00ff" || rows[1].ResultingID != "" || rows[1].ToolName != "memory.learn" {
		t.Fatalf("rows after opening: %+v %v", rows, err)
	}
	l.Close()
	for _, f := range []string{path, path + "-wal"} {
		if b, _ := os.ReadFile(f); bytes.Contains(b, []byte(plain)) {
			t.Errorf("%s still holds the plain id", filepath.Base(f))
		}
	}
	// Opening again changes nothing.
	l, err = sqlite.Open(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if again, _ := l.Recent(context.Background(), 10, false); len(again) != 2 || again[0].ResultingID != "hmac:00ff" {
		t.Fatalf("rows after a second open: %+v", again)
	}
}

package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// A file written before keyword search moved into memory holds an FTS5
// copy of every text; opening it drops that copy and keeps the items, and a
// text forgotten afterwards leaves no trace in the file.
func TestUpgradeDropsTheFTSCopy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	old, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:3] {
		if _, err := old.Exec(m); err != nil {
			t.Fatal(err)
		}
	}
	for _, stmt := range []string{
		`PRAGMA user_version = 3`,
		`INSERT INTO items (id, kind, text, source, provenance, observed_at, created_at)
			VALUES ('a1', 'learning', 'the quokka migration plan', 'agent', 'mcp', 1, 1)`,
		`INSERT INTO items (id, kind, text, source, provenance, observed_at, created_at)
			VALUES ('a2', 'learning', 'the zebracorn launch code', 'agent', 'mcp', 1, 1)`,
	} {
		if _, err := old.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	var indexed int
	if err := old.QueryRow(`SELECT count(*) FROM items_fts WHERE items_fts MATCH 'quokka'`).Scan(&indexed); err != nil || indexed != 1 {
		t.Fatalf("the old schema did not index: %d, %v", indexed, err)
	}
	old.Close()

	s := New(path)
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var tables int
	if err := s.read.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name LIKE 'items_fts%' OR name IN ('items_ai', 'items_ad', 'items_au')`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("%d FTS tables or triggers left, %v", tables, err)
	}
	var texts []string
	if _, _, err := s.ItemChanges(ctx, 0, 0, func(c memory.ItemChange) { texts = append(texts, c.Text) }, func(int64) {}); err != nil || len(texts) != 2 {
		t.Fatalf("items after the upgrade: %q, %v", texts, err)
	}
	if _, err := s.Delete(ctx, []string{"a2"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, []memory.Item{{ID: "a3", Kind: "learning", Text: "a new note", Source: "agent", Provenance: "mcp"}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	AssertGone(t, path, "zebracorn")
}

// Learnings that clients stored before the "client" source existed were
// marked "agent"; opening the file relabels them, and leaves sub-agents'
// learnings and other items as they were.
func TestUpgradeRelabelsClientLearnings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	old, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:4] {
		if _, err := old.Exec(m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := old.Exec(`PRAGMA user_version = 4`); err != nil {
		t.Fatal(err)
	}
	rows := map[string][2]string{ // id → provenance, source before
		"cli": {"cli", "agent"}, "rpc": {"rpc", "agent"}, "mcp": {"mcp:cursor", "agent"}, "unknown": {"unknown", "agent"},
		"sub": {"mcp:cursor/agent:researcher", "agent"}, "bare-sub": {"agent:planner", "agent"}, "doc": {"cli", "folder"},
	}
	for id, r := range rows {
		if _, err := old.Exec(`INSERT INTO items (id, kind, text, source, provenance, observed_at, created_at)
			VALUES (?, 'learning', ?, ?, ?, 1, 1)`, id, "note "+id, r[1], r[0]); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()

	s := New(path)
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := map[string]string{"cli": "client", "rpc": "client", "mcp": "client", "unknown": "client",
		"sub": "agent", "bare-sub": "agent", "doc": "folder"}
	for id, src := range want {
		it, err := s.Item(context.Background(), id, nil)
		if err != nil || it.Source != src {
			t.Errorf("%s: source %q, want %q (%v)", id, it.Source, src, err)
		}
	}
}

// Sources were named by id alone; opening the file names each by its
// items' workspace as well, so that re-ingesting it there is still
// recognised as unchanged.
func TestUpgradeNamesSourcesByWorkspace(t *testing.T) {
	path := openOld(t, 5,
		`INSERT INTO items (id, kind, text, source, provenance, workspace, source_id, observed_at, created_at)
			VALUES ('c1', 'document', 'chunk one', 'file', 'cli', 'acme', '/a.md', 1, 1)`,
		`INSERT INTO sources (source_id, source_kind, display_name, content_hash, updated_ms) VALUES ('/a.md', 'file', 'a.md', 'h1', 1)`,
		`INSERT INTO sources (source_id, source_kind, display_name, content_hash, updated_ms) VALUES ('/gone.md', 'file', 'gone.md', 'h2', 1)`)

	s := New(path)
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	item := memory.Item{ID: "c1", Kind: "document", Text: "chunk one", Source: "file", SourceID: "/a.md", Meta: memory.Meta{Workspace: "acme"}}
	w, err := s.ReplaceSource(ctx, memory.SourceRecord{Workspace: "acme", ID: "/a.md", Kind: "file", DisplayName: "a.md", ContentHash: "h1"}, []memory.Item{item})
	if err != nil || !w.Unchanged {
		t.Errorf("the source is no longer recognised in its workspace: unchanged %v, %v", w.Unchanged, err)
	}
	var ws string
	if err := s.read.QueryRow(`SELECT workspace FROM sources WHERE source_id = '/gone.md'`).Scan(&ws); err != nil || ws != "" {
		t.Errorf("a source without items: workspace %q, %v", ws, err)
	}
}

// openOld writes a file at schema version (the first version migrations),
// runs stmts on it, and closes it, as an older binary would have left it.
func openOld(t *testing.T, version int, stmts ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memory.db")
	old, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	for _, m := range migrations[:version] {
		if _, err := old.Exec(m); err != nil {
			t.Fatal(err)
		}
	}
	for _, stmt := range append([]string{fmt.Sprintf("PRAGMA user_version = %d", version)}, stmts...) {
		if _, err := old.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

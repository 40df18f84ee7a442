package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite/sqlitetest"
)

// The counts tree.list_sources reads stay what counting the items gives
// through every kind of write: learnings, conversation turns, a file
// ingested, changed, unchanged and sent in parts, the same file in two
// workspaces (equally new: the first stored names it), a forgotten chunk
// (the newest, so the newest left counts), every chunk of a source
// forgotten, a forget limited to a workspace.
func TestSourceCountsStayExact(t *testing.T) {
	s := mustOpenStore(t, "")
	ctx := context.Background()
	scopes := [][]string{{"a"}, {"b"}, {"a", "b"}, {""}, {"a", ""}, {}}
	check := func(step string) {
		t.Helper()
		t.Run(step, func(t *testing.T) { sqlitetest.AssertSources(t, s, scopes...) })
	}
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	learning := func(ws, who, text string, min int) memory.Item {
		return item(text, func(it *memory.Item) { it.Meta.Workspace, it.Provenance, it.ObservedAt = ws, who, at(min) })
	}
	chunk := func(ws, source, text string, min int) memory.Item {
		return item(text, func(it *memory.Item) {
			it.Kind, it.Source, it.Provenance, it.SourceID, it.Meta.Workspace, it.ObservedAt = "document", "folder", "cli", source, ws, at(min)
		})
	}
	file := func(ws, id, name, hash string) memory.SourceRecord {
		return memory.SourceRecord{Workspace: ws, ID: id, Kind: "folder", DisplayName: name, ContentHash: hash}
	}
	replace := func(src memory.SourceRecord, items ...memory.Item) bool {
		t.Helper()
		w, err := s.ReplaceSource(ctx, src, items)
		unchanged := w.Unchanged
		if err != nil {
			t.Fatal(err)
		}
		return unchanged
	}
	forget := func(workspaces []string, items ...memory.Item) {
		t.Helper()
		ids := make([]string, len(items))
		for i, it := range items {
			ids[i] = it.ID
		}
		if _, err := s.Delete(ctx, ids, workspaces); err != nil {
			t.Fatal(err)
		}
	}
	check("empty")

	l1, l2, l3 := learning("", "mcp:cursor", "Tabs over spaces.", 1), learning("", "mcp:cursor", "Dark mode.", 5), learning("a", "mcp:cursor", "The a roadmap.", 3)
	agent := item("The agent found the bug.", func(it *memory.Item) { it.Source, it.Provenance, it.ObservedAt = "agent", "agent:coder", at(2) })
	put(t, s, l1, l2, l3, agent)
	check("learnings")

	turns := []memory.Item{}
	for i := range 3 {
		turns = append(turns, item(fmt.Sprintf("Maya: turn %d", i), func(it *memory.Item) {
			it.Kind, it.Source, it.SourceID, it.Meta.ThreadID, it.ObservedAt = "conversation", "conversation", "thread:t1", "t1", at(10+i)
		}))
	}
	put(t, s, turns...)
	put(t, s, turns[1]) // a replay counts nothing
	check("conversation turns")

	a1, a2, a3 := chunk("a", "/r/x.md", "x part one", 20), chunk("a", "/r/x.md", "x part two", 20), chunk("a", "/r/x.md", "x part three", 20)
	replace(file("a", "/r/x.md", "x.md", "h1"), a1, a2, a3)
	b1, b2 := chunk("b", "/r/x.md", "x part one", 25), chunk("b", "/r/x.md", "x part two", 25)
	replace(file("b", "/r/x.md", "r/x.md", "h1"), b1, b2)
	check("one file in two workspaces")
	tieB1, tieB2 := chunk("b", "/r/tie.md", "tie one", 50), chunk("b", "/r/tie.md", "tie two", 50)
	replace(file("b", "/r/tie.md", "b/tie.md", "t"), tieB1, tieB2)
	tieA := chunk("a", "/r/tie.md", "tie one", 50)
	replace(file("a", "/r/tie.md", "a/tie.md", "t"), tieA)
	check("one file in two workspaces, equally new")

	a4 := chunk("a", "/r/x.md", "x part four", 30)
	replace(file("a", "/r/x.md", "x.md", "h2"), a1, a4)
	if !replace(file("a", "/r/x.md", "x.md", "h2"), a1, a4) {
		t.Fatal("the same version again is not unchanged")
	}
	check("a file changed, then unchanged")

	big := file("a", "/r/big.md", "big.md", "v1")
	if _, err := s.StartSource(ctx, big); err != nil {
		t.Fatal(err)
	}
	p1, p2, p3 := chunk("a", "/r/big.md", "big one", 40), chunk("a", "/r/big.md", "big two", 40), chunk("a", "/r/big.md", "big three", 41)
	if _, err := s.PutSourcePart(ctx, big, []memory.Item{p1, p2}, false); err != nil {
		t.Fatal(err)
	}
	check("the first part of a file")
	if _, err := s.PutSourcePart(ctx, big, []memory.Item{p3}, true); err != nil {
		t.Fatal(err)
	}
	big.ContentHash = "v2"
	if _, err := s.StartSource(ctx, big); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutSourcePart(ctx, big, []memory.Item{p1}, true); err != nil {
		t.Fatal(err)
	}
	check("a file in parts, then a shorter version")

	forget(nil, a4)
	check("the newest chunk forgotten")
	forget(nil, tieB1)
	check("the first stored of the newest chunks forgotten")
	forget(nil, tieB2)
	check("the other workspace's newest chunks forgotten")
	forget(nil, b1, b2)
	check("every chunk of a source forgotten")
	// What a migration relabelling items would do.
	s.Exec(t, `UPDATE items SET source = 'client' WHERE provenance = 'mcp:cursor' AND workspace = ''`)
	s.Exec(t, `UPDATE items SET observed_at = observed_at - 60000 WHERE id = ?`, p1.ID)
	s.Exec(t, `UPDATE items SET workspace = 'b' WHERE id = ?`, tieA.ID)
	check("items relabelled")
	forget([]string{"b"}, l3)
	check("a forget of another workspace")
	forget([]string{"a"}, l3, turns[2], l2)
	check("forgets limited to a workspace")
	forget(nil, l1, agent, turns[0], turns[1], a1, p1, tieA)
	check("everything forgotten")
}

// A file written before source counts existed gets them on opening, the
// listing unchanged, and keeps them exact afterwards.
func TestUpgradeCountsSources(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	sqlite.WriteOldSchema(t, path, 8,
		`INSERT INTO items (id, kind, text, source, provenance, workspace, source_id, observed_at, created_at) VALUES
			('l1', 'learning', 'tabs', 'client', 'mcp:cursor', '', '', 5, 5),
			('l2', 'learning', 'dark', 'client', 'mcp:cursor', '', '', 9, 9),
			('l3', 'learning', 'roadmap', 'agent', 'agent:coder', 'a', '', 7, 7),
			('d1', 'document', 'x one', 'folder', 'cli', 'a', '/r/x.md', 20, 20),
			('d2', 'document', 'x two', 'folder', 'cli', 'a', '/r/x.md', 21, 21),
			('d3', 'document', 'x one', 'folder', 'cli', 'b', '/r/x.md', 30, 30),
			('t1', 'conversation', 'Maya: hi', 'conversation', 'cli', '', 'thread:t1', 12, 12)`,
		`INSERT INTO sources (workspace, source_id, source_kind, display_name, content_hash, updated_ms) VALUES
			('a', '/r/x.md', 'folder', 'x.md', 'h1', 1), ('b', '/r/x.md', 'folder', 'r/x.md', 'h1', 1)`)
	s := mustOpenStore(t, path)
	scopes := [][]string{{"a"}, {"b"}, {"a", "b"}, {""}}
	sqlitetest.AssertSources(t, s, scopes...)
	list, err := s.Sources(context.Background(), nil)
	if err != nil || len(list) != 4 || list[0].SourceID != "/r/x.md" || list[0].ChunkCount != 3 || list[0].DisplayName != "r/x.md" {
		t.Fatalf("sources after the upgrade: %+v, %v", list, err)
	}
	if _, err := s.Delete(context.Background(), []string{"d3", "l2"}, nil); err != nil {
		t.Fatal(err)
	}
	sqlitetest.AssertSources(t, s, scopes...)
}

// BenchmarkSources lists the sources of a memory holding 10,000 and
// 100,000 chunks of files of 100 chunks each, unscoped and for one
// workspace of two.
func BenchmarkSources(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		s := mustOpenStore(b, "")
		ctx := context.Background()
		for start := 0; start < n; start += 1000 {
			batch := make([]memory.Item, 1000)
			for i := range batch {
				k := start + i
				batch[i] = item(fmt.Sprintf("chunk %d of file %d", k%100, k/100), func(it *memory.Item) {
					it.Kind, it.Source, it.Provenance = "document", "folder", "cli"
					it.SourceID, it.Meta.Workspace = fmt.Sprintf("/repo/f%d.md", k/100), []string{"a", "b"}[k/100%2]
				})
			}
			if _, err := s.Put(ctx, batch); err != nil {
				b.Fatal(err)
			}
		}
		for _, scope := range [][]string{nil, {"a"}} {
			b.Run(fmt.Sprintf("%d_items/scope_%d", n, len(scope)), func(b *testing.B) {
				for b.Loop() {
					if list, err := s.Sources(ctx, scope); err != nil || len(list) == 0 {
						b.Fatal(len(list), err)
					}
				}
			})
		}
	}
}

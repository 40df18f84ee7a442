package sqlite_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// A store read limited to workspaces answers as if the items of the others
// were not stored: the same absence, the same counts.
func TestWorkspaceLimitedReads(t *testing.T) {
	s := mustOpenStore(t, "")
	ctx := context.Background()
	put := func(id, ws, source, text string) {
		t.Helper()
		it := memory.Item{ID: id, Kind: "document", Source: "file", SourceID: source, Text: text, Provenance: "cli",
			Meta: memory.Meta{Workspace: ws}, Entities: []memory.Entity{{ID: "person:lena", Kind: "person", Surface: "Lena"}}}
		if _, err := s.Put(ctx, []memory.Item{it}); err != nil {
			t.Fatal(err)
		}
	}
	put("a1", "a", "/a.md", "Lena owns the a roadmap.")
	put("b1", "b", "/b.md", "Lena owns the b roadmap.")
	put("b2", "b", "/a.md", "Lena reviews the b budget.")
	put("n1", "", "", "Lena has no workspace.")
	onlyA := []string{"a"}

	if _, err := s.Item(ctx, "b1", onlyA); contract.ErrorCode(err) != contract.CodeNotFound {
		t.Errorf("an item of another workspace: %v", err)
	}
	_, errHidden := s.Item(ctx, "b1", onlyA)
	_, errAbsent := s.Item(ctx, "zz", onlyA)
	if h, a := strings.ReplaceAll(errHidden.Error(), "b1", "ID"), strings.ReplaceAll(errAbsent.Error(), "zz", "ID"); h != a {
		t.Errorf("hidden %q, absent %q", h, a)
	}
	if it, err := s.Item(ctx, "a1", onlyA); err != nil || it.ID != "a1" {
		t.Errorf("its own item: %v %v", it.ID, err)
	}
	items, total, err := s.Browse(ctx, memory.BrowseQuery{Workspaces: onlyA, K: 10})
	if err != nil || total != 1 || len(items) != 1 || items[0].ID != "a1" {
		t.Errorf("browse: %d items of %d, %v", len(items), total, err)
	}
	ents, err := s.TopEntities(ctx, "", 10, onlyA)
	if err != nil || len(ents) != 1 || ents[0].Count != 1 {
		t.Errorf("entities: %+v %v", ents, err)
	}
	if all, _ := s.TopEntities(ctx, "", 10, nil); len(all) != 1 || all[0].Count != 4 {
		t.Errorf("entities of everyone: %+v", all)
	}
	srcs, err := s.Sources(ctx, onlyA)
	if err != nil || len(srcs) != 1 || srcs[0].SourceID != "/a.md" || srcs[0].ChunkCount != 1 {
		t.Errorf("sources: %+v %v", srcs, err)
	}
	seqs, err := s.Matching(ctx, &memory.Filter{Workspaces: []string{"a", "b"}}, 1<<40)
	if err != nil || len(seqs) != 3 {
		t.Errorf("matching a and b: %v %v", seqs, err)
	}
	if seqs, _ := s.Matching(ctx, &memory.Filter{Workspaces: []string{}}, 1<<40); len(seqs) != 0 {
		t.Errorf("an empty scope let %v through", seqs)
	}
	w, err := s.Delete(ctx, []string{"b1", "a1"}, onlyA)
	missing := w.Missing
	if err != nil || len(missing) != 1 || missing[0] != "b1" {
		t.Errorf("delete: missing %v, %v", missing, err)
	}
	if _, err := s.Item(ctx, "b1", nil); err != nil {
		t.Errorf("the other workspace's item was deleted: %v", err)
	}
}

// The same file ingested into two workspaces is two sources: neither
// replaces nor reveals the other.
func TestSourcesAreNamedByWorkspace(t *testing.T) {
	s := mustOpenStore(t, "")
	ctx := context.Background()
	chunk := func(id, ws string) memory.Item {
		return memory.Item{ID: id, Kind: "document", Source: "file", SourceID: "/notes.md", Text: "text of " + id, Meta: memory.Meta{Workspace: ws}}
	}
	src := func(ws, hash string) memory.SourceRecord {
		return memory.SourceRecord{Workspace: ws, ID: "/notes.md", Kind: "file", DisplayName: "notes " + ws, ContentHash: hash}
	}
	if _, err := s.ReplaceSource(ctx, src("b", "same"), []memory.Item{chunk("b1", "b")}); err != nil {
		t.Fatal(err)
	}
	w, err := s.ReplaceSource(ctx, src("a", "same"), []memory.Item{chunk("a1", "a")})
	unchanged := w.Unchanged
	if err != nil || unchanged {
		t.Fatalf("a's first ingest of the same content: unchanged %v, %v", unchanged, err)
	}
	if _, err := s.ReplaceSource(ctx, src("a", "changed"), []memory.Item{chunk("a2", "a")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Item(ctx, "b1", nil); err != nil {
		t.Errorf("a's re-ingest deleted b's chunk: %v", err)
	}
	if _, err := s.Item(ctx, "a1", nil); contract.ErrorCode(err) != contract.CodeNotFound {
		t.Errorf("a's old chunk stayed: %v", err)
	}
	if w, _ := s.ReplaceSource(ctx, src("b", "same"), []memory.Item{chunk("b1", "b")}); !w.Unchanged {
		t.Error("b's unchanged file is no longer recognised as unchanged")
	}
	srcs, err := s.Sources(ctx, []string{"b"})
	if err != nil || len(srcs) != 1 || srcs[0].DisplayName != "notes b" {
		t.Errorf("b's sources: %+v %v", srcs, err)
	}
}

package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// A source that lost a chunk keeps no hash of the content that held it,
// so ingesting the file again stores it again; a source with no chunks
// left goes, its hash with it.
func TestForgettingAChunkDropsItsSourceHash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	s := mustOpenStore(t, path)
	ctx := context.Background()
	const hash = "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"
	src := memory.SourceRecord{ID: "/notes/a.md", Kind: "file", DisplayName: "a.md", ContentHash: hash}
	chunk := func(text string) memory.Item {
		return item(text, func(it *memory.Item) { it.Kind, it.SourceID = "document", src.ID })
	}
	a, b := chunk("the first part"), chunk("the second part")
	if _, err := s.ReplaceSource(ctx, src, []memory.Item{a, b}); err != nil {
		t.Fatal(err)
	}
	if w, _ := s.ReplaceSource(ctx, src, []memory.Item{a, b}); !w.Unchanged {
		t.Fatal("the same content is not unchanged to begin with")
	}
	if _, err := s.Delete(ctx, []string{a.ID}, nil); err != nil {
		t.Fatal(err)
	}
	if srcs, _ := s.Sources(ctx, nil); len(srcs) != 1 || srcs[0].ChunkCount != 1 {
		t.Fatalf("sources after forgetting one chunk: %+v", srcs)
	}
	sqlite.AssertGone(t, path, hash)
	if _, err := s.Delete(ctx, []string{b.ID}, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	sqlite.AssertGone(t, path, hash)

	s = mustOpenStore(t, path)
	if w, err := s.ReplaceSource(ctx, src, []memory.Item{a, b}); err != nil || w.Unchanged || w.Replayed[0] || w.Replayed[1] {
		t.Fatalf("ingesting the file again: unchanged %v, replayed %v, %v", w.Unchanged, w.Replayed, err)
	}
}

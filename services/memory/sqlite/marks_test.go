package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

func mustOpen(tb testing.TB, path string) *Store {
	tb.Helper()
	s := New(path)
	if err := s.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func note(i int) memory.Item {
	t := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	it := memory.Item{Kind: "learning", LearningKind: "fact", Text: fmt.Sprintf("note %d", i), Source: "agent",
		Provenance: "mcp:test", ObservedAt: t, CreatedAt: t}
	it.ID = memory.Fingerprint(it)
	return it
}

// TestMarksFollowAnotherWriter: a store sees the marks move as soon as a
// write by another store on the same file (its own connections, as
// another process has) has committed, though it answers unchanged marks
// without a lookup.
func TestMarksFollowAnotherWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	writer, reader := mustOpen(t, path), mustOpen(t, path)
	ctx := context.Background()
	if _, err := reader.Marks(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := reader.walIndexHeader(); !ok {
		t.Fatal("the wal-index header cannot be read, so every Marks is a lookup")
	}
	for i := range 200 {
		if _, err := writer.Put(ctx, []memory.Item{note(i)}); err != nil {
			t.Fatal(err)
		}
		if i%50 == 49 { // a deletion checkpoints and truncates the log
			if _, err := writer.Delete(ctx, []string{note(i - 1).ID}, nil); err != nil {
				t.Fatal(err)
			}
		}
		want, err := writer.readMarks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second answer comes from the cache
			if got, err := reader.Marks(ctx); err != nil || got != want {
				t.Fatalf("after write %d: marks %+v, %v; want %+v", i, got, err, want)
			}
		}
	}
	hdr, _ := reader.walIndexHeader()
	if _, ok := reader.marks.get(hdr); !ok {
		t.Error("unchanged marks were not kept")
	}
}

// BenchmarkMarks: the marks a search asks for when nothing has changed,
// against the lookup that reads them.
func BenchmarkMarks(b *testing.B) {
	s := mustOpen(b, filepath.Join(b.TempDir(), "memory.db"))
	ctx := context.Background()
	if _, err := s.Put(ctx, []memory.Item{note(1)}); err != nil {
		b.Fatal(err)
	}
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Marks(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lookup", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.readMarks(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

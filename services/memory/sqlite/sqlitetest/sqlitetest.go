// Package sqlitetest writes memory databases for tests: full ones, for
// tests that need real work behind a call, and damaged ones, for tests of
// what the system does with a file that is no longer sound.
package sqlitetest

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// WriteItems stores n learnings in the memory database at path, through
// the memory service as a client's learnings would go, and closes it with
// its WAL checkpointed into the file.
func WriteItems(tb testing.TB, path string, n int) {
	tb.Helper()
	store := sqlite.New(path)
	if err := store.Open(); err != nil {
		tb.Fatal(err)
	}
	svc := memory.NewService(store, &memory.Options{Embedder: localembed.NewGloveEmbedder(0)})
	for b := 0; b < n; b += 1000 {
		items := make([]memory.Item, min(1000, n-b))
		for i := range items {
			k := b + i
			items[i] = memory.Item{Kind: "learning", LearningKind: "fact", Source: "client", Provenance: "mcp:test",
				Text: fmt.Sprintf("Note %d: the deploy of service %d goes through cluster %d after a review by team %d.", k, k%97, k%13, k%7)}
		}
		if _, err := svc.Remember(context.Background(), items); err != nil {
			tb.Fatal(err)
		}
	}
	if err := store.Checkpoint(); err != nil {
		tb.Fatal(err)
	}
	if err := store.Close(); err != nil {
		tb.Fatal(err)
	}
}

// DamageMiddlePage overwrites the page in the middle of the SQLite file at
// path with garbage, as a failing disk or a torn copy would: the header
// still reads, so the file opens, and the queries that reach that page fail.
// The file must be closed, its WAL checkpointed, and it must hold at least
// three pages.
func DamageMiddlePage(tb testing.TB, path string) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	header := make([]byte, 100)
	if _, err := f.ReadAt(header, 0); err != nil {
		tb.Fatal(err)
	}
	pageSize := int64(binary.BigEndian.Uint16(header[16:18]))
	if pageSize == 1 {
		pageSize = 65536 // how the header spells the largest size
	}
	fi, err := f.Stat()
	if err != nil {
		tb.Fatal(err)
	}
	pages := fi.Size() / pageSize
	if pages < 3 {
		tb.Fatalf("%s has %d pages: too few to damage one in the middle", path, pages)
	}
	garbage := make([]byte, pageSize)
	for i := range garbage {
		garbage[i] = byte(0xA5 ^ i*31)
	}
	if _, err := f.WriteAt(garbage, pages/2*pageSize); err != nil {
		tb.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		tb.Fatal(err)
	}
}

// Package sqlitetest damages memory databases for tests of what the system
// does with a file that is no longer sound.
package sqlitetest

import (
	"encoding/binary"
	"os"
	"testing"
)

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

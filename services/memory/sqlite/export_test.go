package sqlite

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// SetUserVersion lets tests fake a database written by a newer binary.
func (s *Store) SetUserVersion(v int) error {
	_, err := s.write.Exec(fmt.Sprintf("PRAGMA user_version = %d", v))
	return err
}

// Synchronous reads the writer connection's synchronous setting.
func (s *Store) Synchronous() int {
	var n int
	_ = s.write.QueryRow(`PRAGMA synchronous`).Scan(&n)
	return n
}

// AssertGone fails t when the database file at path, or its WAL, still
// holds text: forgetting must leave no copy behind.
func AssertGone(t *testing.T, path, text string) {
	t.Helper()
	for _, f := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(text)) {
			t.Errorf("%s still holds the forgotten text %q", filepath.Base(f), text)
		}
	}
}

// WriteOldSchema writes the database at path as a binary knowing only the
// first version migrations left it, then runs stmts on it.
func WriteOldSchema(tb testing.TB, path string, version int, stmts ...string) {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	for _, q := range append(append([]string{}, migrations[:version]...), append([]string{fmt.Sprintf("PRAGMA user_version = %d", version)}, stmts...)...) {
		if _, err := db.Exec(q); err != nil {
			tb.Fatal(err)
		}
	}
}

// Exec runs a statement on the writer, as a migration would.
func (s *Store) Exec(tb testing.TB, query string, args ...any) {
	tb.Helper()
	if _, err := s.write.Exec(query, args...); err != nil {
		tb.Fatal(err)
	}
}

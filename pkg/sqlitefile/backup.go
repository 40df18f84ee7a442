package sqlitefile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// A backup of a file in use is VACUUM INTO: one read transaction, so the
// copy holds every transaction committed before it began and none after,
// while writers go on (WAL lets them), and the copy is compact and holds
// no free pages, so nothing deleted before it lingers in it.

// Snapshot writes a consistent copy of the database at src to dest, which
// must not exist, and returns the copy's schema version (user_version).
func Snapshot(ctx context.Context, src, dest string) (int, error) {
	if _, err := os.Stat(src); err != nil {
		return 0, err
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(30000)")
	db, err := sql.Open("sqlite", "file:"+src+"?"+q.Encode())
	if err != nil {
		return 0, err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, dest); err != nil {
		return 0, fmt.Errorf("copying %s: %w", src, err)
	}
	if err := os.Chmod(dest, 0o600); err != nil {
		return 0, err
	}
	return Inspect(ctx, dest)
}

// Inspect checks the database at path (PRAGMA integrity_check) without
// changing it and returns its schema version.
func Inspect(ctx context.Context, path string) (int, error) {
	if _, err := os.Stat(path); err != nil {
		return 0, err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(30000)")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return 0, fmt.Errorf("%s is not a SQLite database: %w", path, err)
	}
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return 0, err
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(problems) > 0 {
		return 0, fmt.Errorf("%s is damaged: %s", path, strings.Join(problems[:min(len(problems), 3)], "; "))
	}
	var v int
	err = db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v)
	return v, err
}

// ErrInUse says a database is open in another process.
var ErrInUse = errors.New("the database is open in another process")

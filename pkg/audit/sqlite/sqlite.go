// Package sqlite keeps the audit trail in a table of its own SQLite file,
// the embedded default: several processes (each openhuman-core an MCP
// client launched, and the agents service) append to one file safely.
package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/openhuman-go/openhuman-go/pkg/audit"
	"github.com/openhuman-go/openhuman-go/pkg/sqlitefile"
)

// Log keeps rows in a table of their own file. Several processes may
// write one file (WAL, busy timeout). It keeps the newest maxRows.
type Log struct {
	db      *sql.DB
	path    string
	maxRows int64
	inserts atomic.Int64
}

var _ audit.Log = (*Log)(nil)

// migrations are the audit table's schema, in order. The first is written
// to find the table of a file made before migrations counted, as it is.
var migrations = []string{`
CREATE TABLE IF NOT EXISTS audit (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	timestamp_ms INTEGER NOT NULL,
	client TEXT NOT NULL,
	tool_name TEXT NOT NULL,
	args_summary TEXT NOT NULL,
	resulting_id TEXT NOT NULL DEFAULT '',
	success INTEGER NOT NULL,
	error_message TEXT NOT NULL DEFAULT ''
)`, `
-- The name of the HTTP bearer token the call came with.
ALTER TABLE audit ADD COLUMN token TEXT NOT NULL DEFAULT ''`, `
-- Rows used to keep resulting ids as they came, and a memory item's id is
-- a plain hash of its text: such ids are blanked, HMACs (see
-- audit.Pseudonym) kept.
UPDATE audit SET resulting_id = '' WHERE resulting_id != '' AND resulting_id NOT LIKE 'hmac:%'`,
}

// Open opens (creating) the audit file at path.
func Open(path string, maxRows int) (*Log, error) {
	if err := sqlitefile.Private(path); err != nil {
		return nil, fmt.Errorf("creating the audit file: %w", err)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(30000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	// A migrated or trimmed row's old bytes are zeroed, not left in free space.
	q.Add("_pragma", "secure_delete(1)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	// Each openhuman-core a client launches opens this file, often at the
	// same moment.
	err = sqlitefile.RetryBusy(30*time.Second, func() error { return sqlitefile.Migrate(context.Background(), db, migrations) })
	if err == nil {
		// The old pages of a blanked id leave the file for good, not
		// only its tables.
		_, err = db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("opening the audit log %s: %w", path, err)
	}
	if maxRows <= 0 {
		maxRows = 100000
	}
	return &Log{db: db, path: path, maxRows: int64(maxRows)}, nil
}

// Record inserts r.
func (s *Log) Record(ctx context.Context, r audit.Row) error {
	summary, _ := json.Marshal(r.ArgsSummary)
	res, err := s.db.ExecContext(ctx, `INSERT INTO audit (timestamp_ms, client, token, tool_name, args_summary, resulting_id, success, error_message) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		r.TimestampMS, r.Client, r.Token, r.ToolName, string(summary), r.ResultingID, r.Success, r.ErrorMessage)
	if err != nil {
		return fmt.Errorf("audit log %s: %w", s.path, err)
	}
	// Trim now and then, not on every row.
	if s.inserts.Add(1)%1000 == 0 {
		if id, err := res.LastInsertId(); err == nil {
			_, _ = s.db.ExecContext(ctx, `DELETE FROM audit WHERE id <= ?`, id-s.maxRows)
		}
	}
	return nil
}

// Recent returns the newest n rows.
func (s *Log) Recent(ctx context.Context, n int, failuresOnly bool) ([]audit.Row, error) {
	query := `SELECT timestamp_ms, client, token, tool_name, args_summary, resulting_id, success, error_message FROM audit`
	if failuresOnly {
		query += ` WHERE success = 0`
	}
	rows, err := s.db.QueryContext(ctx, query+` ORDER BY id DESC LIMIT ?`, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []audit.Row{}
	for rows.Next() {
		var r audit.Row
		var summary string
		if err := rows.Scan(&r.TimestampMS, &r.Client, &r.Token, &r.ToolName, &summary, &r.ResultingID, &r.Success, &r.ErrorMessage); err != nil {
			return nil, err
		}
		_ = json.Unmarshal([]byte(summary), &r.ArgsSummary)
		out = append(out, r)
	}
	return out, rows.Err()
}

// Backend is "sqlite:<path>".
func (s *Log) Backend() string { return "sqlite:" + s.path }

// Close closes the file.
func (s *Log) Close() error { return s.db.Close() }

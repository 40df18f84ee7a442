// Package sqlite keeps the authorization server's records in a SQLite file
// of the gateway's home (oauth.db, created 0600), for a gateway without
// Redis: several openhuman-core processes on one home share it.
package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/openhuman-go/openhuman-go/pkg/sqlitefile"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
)

// Store is the records in one table.
type Store struct {
	db   *sql.DB
	now  func() time.Time
	puts atomic.Int64
}

var _ oauth.Store = (*Store)(nil)

var migrations = []string{`
CREATE TABLE records (
	kind TEXT NOT NULL,
	key TEXT NOT NULL,
	value BLOB NOT NULL,
	expires_ms INTEGER NOT NULL DEFAULT 0, -- 0: no end
	used INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (kind, key)
) WITHOUT ROWID;
CREATE INDEX records_expiry ON records (expires_ms) WHERE expires_ms > 0`,
}

// Open opens (creating) the file at path.
func Open(path string) (*Store, error) {
	if err := sqlitefile.Private(path); err != nil {
		return nil, fmt.Errorf("creating the OAuth store: %w", err)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(30000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "secure_delete(1)") // a revoked grant's bytes are zeroed
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if err := sqlitefile.RetryBusy(30*time.Second, func() error { return sqlitefile.Migrate(context.Background(), db, migrations) }); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening the OAuth store %s: %w", path, err)
	}
	return &Store{db: db, now: time.Now}, nil
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

const live = `(expires_ms = 0 OR expires_ms > ?)`

// Put keeps a record, and now and then drops those that expired.
func (s *Store) Put(ctx context.Context, kind, key string, value []byte, expires time.Time) error {
	if _, err := s.db.ExecContext(ctx, `INSERT INTO records (kind, key, value, expires_ms, used) VALUES (?, ?, ?, ?, 0)
		ON CONFLICT (kind, key) DO UPDATE SET value = excluded.value, expires_ms = excluded.expires_ms, used = 0`, kind, key, value, ms(expires)); err != nil {
		return err
	}
	if s.puts.Add(1)%100 == 0 {
		_, _ = s.db.ExecContext(ctx, `DELETE FROM records WHERE expires_ms > 0 AND expires_ms <= ?`, s.now().UnixMilli())
	}
	return nil
}

// Get returns a live record.
func (s *Store) Get(ctx context.Context, kind, key string) ([]byte, bool, error) {
	var v []byte
	err := s.db.QueryRowContext(ctx, `SELECT value FROM records WHERE kind = ? AND key = ? AND `+live, kind, key, s.now().UnixMilli()).Scan(&v)
	if err == sql.ErrNoRows {
		return nil, false, nil
	}
	return v, err == nil, err
}

// Update replaces a live record.
func (s *Store) Update(ctx context.Context, kind, key string, value []byte, expires time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE records SET value = ?, expires_ms = ? WHERE kind = ? AND key = ? AND `+live,
		value, ms(expires), kind, key, s.now().UnixMilli())
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Swap replaces a live record that still holds old, in one statement.
func (s *Store) Swap(ctx context.Context, kind, key string, old, value []byte, expires time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE records SET value = ?, expires_ms = ? WHERE kind = ? AND key = ? AND value = ? AND `+live,
		value, ms(expires), kind, key, old, s.now().UnixMilli())
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Use marks a live record used, in one transaction: of two processes
// using it at once, one is first.
func (s *Store) Use(ctx context.Context, kind, key string) ([]byte, bool, bool, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, false, false, err
	}
	defer tx.Rollback()
	now := s.now().UnixMilli()
	var v []byte
	var used bool
	err = tx.QueryRowContext(ctx, `SELECT value, used FROM records WHERE kind = ? AND key = ? AND `+live, kind, key, now).Scan(&v, &used)
	if err == sql.ErrNoRows {
		return nil, false, false, nil
	}
	if err != nil {
		return nil, false, false, err
	}
	if !used {
		if _, err := tx.ExecContext(ctx, `UPDATE records SET used = 1 WHERE kind = ? AND key = ?`, kind, key); err != nil {
			return nil, false, false, err
		}
	}
	return v, true, !used, tx.Commit()
}

// Delete drops a record.
func (s *Store) Delete(ctx context.Context, kind, key string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM records WHERE kind = ? AND key = ?`, kind, key)
	return err
}

// DeleteIf drops a record that still holds old, in one statement.
func (s *Store) DeleteIf(ctx context.Context, kind, key string, old []byte) (bool, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM records WHERE kind = ? AND key = ? AND value = ?`, kind, key, old)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// List returns the live records of kind.
func (s *Store) List(ctx context.Context, kind string) ([][]byte, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT value FROM records WHERE kind = ? AND `+live, kind, s.now().UnixMilli())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var v []byte
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

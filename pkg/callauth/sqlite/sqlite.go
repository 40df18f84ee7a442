// Package sqlite keeps the nonces of accepted call proofs in a SQLite
// file of a service's home, so that a request captured and sent again is
// refused after the service restarts, not only until then: for a service
// run on its own (distributed mode) without Redis to share them with its
// replicas. Embedded mode needs none: its keys are made at each start, so
// no proof outlives the process.
package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/openhuman-go/openhuman-go/pkg/callauth"
	"github.com/openhuman-go/openhuman-go/pkg/sqlitefile"
)

// Nonces keeps nonces in a table of their own file.
type Nonces struct {
	db      *sql.DB
	inserts atomic.Int64
}

var _ callauth.Nonces = (*Nonces)(nil)

// Open opens (creating) the file at path.
func Open(path string) (*Nonces, error) {
	if err := sqlitefile.Private(path); err != nil {
		return nil, fmt.Errorf("creating %s: %w", path, err)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(30000)")
	q.Add("_pragma", "journal_mode(WAL)")
	// Losing the last nonces to a power cut reopens a window of a minute
	// or so; a sync per call would cost every call a disk write.
	q.Add("_pragma", "synchronous(NORMAL)")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	err = sqlitefile.RetryBusy(30*time.Second, func() error {
		_, err := db.Exec(`CREATE TABLE IF NOT EXISTS nonces (nonce TEXT PRIMARY KEY, forget_ms INTEGER NOT NULL) WITHOUT ROWID`)
		return err
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	return &Nonces{db: db}, nil
}

// Add records nonce unless it is there.
func (n *Nonces) Add(ctx context.Context, nonce string, exp int64) (bool, error) {
	res, err := n.db.ExecContext(ctx, `INSERT OR IGNORE INTO nonces (nonce, forget_ms) VALUES (?, ?)`, nonce, callauth.Forget(exp).UnixMilli())
	if err != nil {
		return false, err
	}
	added, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	// The expired go now and then, not on every call.
	if n.inserts.Add(1)%1000 == 0 {
		_, _ = n.db.ExecContext(ctx, `DELETE FROM nonces WHERE forget_ms < ?`, time.Now().UnixMilli())
	}
	return added == 1, nil
}

// Close closes the file.
func (n *Nonces) Close() error { return n.db.Close() }

// Package sqlitefile holds what every SQLite file of ours needs when
// several processes open it at once: the memory store and the audit log
// are both shared by each openhuman-core a client launches.
package sqlitefile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// busy is SQLITE_BUSY; extended codes keep it in their low byte.
const busy = 5

// IsBusy reports whether err is SQLite's "database is locked".
func IsBusy(err error) bool {
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == busy
}

// RetryBusy runs fn until it succeeds, fails other than busy, or timeout
// has passed. Two processes opening a new file at once contend for the
// switch to WAL and the first schema change; SQLite answers such lock
// upgrades with BUSY at once, whatever the busy timeout, so the attempt is
// repeated after a short random pause.
func RetryBusy(timeout time.Duration, fn func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := fn()
		if err == nil || !IsBusy(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(time.Duration(20+rand.IntN(80)) * time.Millisecond)
	}
}

// Migrate brings db's schema to the last of migrations, each a script run
// once, in order; PRAGMA user_version counts those applied. All run in one
// transaction, which db must begin IMMEDIATE (_txlock=immediate), so two
// processes starting on one file at the same moment migrate it once.
func Migrate(ctx context.Context, db *sql.DB, migrations []string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return err
	}
	if version > len(migrations) {
		return fmt.Errorf("the database is schema version %d, newer than this binary knows (%d): upgrade openhuman", version, len(migrations))
	}
	for i := version; i < len(migrations); i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, len(migrations))); err != nil {
		return err
	}
	return tx.Commit()
}

package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// The replica row holds what a replicated store needs across restarts: its
// name (its durable consumer's) and the last stream sequence it applied.
// Every write an event makes records that sequence in its own transaction
// (see markApplied), so a restart resumes exactly where it left.

// markApplied records the stream sequence ctx carries, if any, in tx.
func markApplied(ctx context.Context, tx *sql.Tx) error {
	seq, ok := memory.AppliedSeqFromContext(ctx)
	if !ok {
		return nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE replica SET applied_seq = ? WHERE id = 1 AND applied_seq < ?`, int64(seq), int64(seq))
	return err
}

// Replica reads the replica's name and the last stream sequence it applied.
func (s *Store) Replica(ctx context.Context) (name string, applied uint64, err error) {
	var seq int64
	err = s.write.QueryRowContext(ctx, `SELECT name, applied_seq FROM replica WHERE id = 1`).Scan(&name, &seq)
	return name, uint64(seq), s.storeErr("reading the replica's position", err)
}

// SetReplicaName names the replica (a store restored from another
// replica's snapshot takes a name of its own).
func (s *Store) SetReplicaName(ctx context.Context, name string) error {
	_, err := s.write.ExecContext(ctx, `UPDATE replica SET name = ? WHERE id = 1`, name)
	return s.storeErr("naming the replica", err)
}

// MarkApplied records seq as applied without any other change: an event
// that could not be applied and was skipped.
func (s *Store) MarkApplied(ctx context.Context, seq uint64) error {
	return s.inTx(memory.NewContextWithAppliedSeq(ctx, seq), "skipping an event", func(*sql.Tx) error { return nil })
}

// Snapshot writes a consistent copy of the database to path (VACUUM INTO:
// compact, and without the free pages a forget zeroed) and returns the
// stream sequence it holds.
func (s *Store) Snapshot(ctx context.Context, path string) (uint64, error) {
	_ = os.Remove(path)
	if _, err := s.write.ExecContext(ctx, `VACUUM INTO ?`, path); err != nil {
		return 0, s.storeErr("writing a snapshot", err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return 0, fmt.Errorf("reading the snapshot: %w", err)
	}
	defer db.Close()
	var seq int64
	if err := db.QueryRowContext(ctx, `SELECT applied_seq FROM replica WHERE id = 1`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("reading the snapshot's position: %w", err)
	}
	return uint64(seq), nil
}

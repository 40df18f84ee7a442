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
// (At), so a restart resumes exactly where it left.

// markApplied records seq, when not 0, as the last event applied, in tx.
func markApplied(ctx context.Context, tx *sql.Tx, seq uint64) error {
	if seq == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE replica SET applied_seq = ? WHERE id = 1 AND applied_seq < ?`, int64(seq), int64(seq))
	return err
}

// At is the store as the write stream's follower writes to it: each write
// records seq, the event it applies, as applied in the write's own
// transaction.
func (s *Store) At(seq uint64) memory.Writer { return applying{s, seq} }

// applying is a Store's writes as the effect of event seq.
type applying struct {
	s   *Store
	seq uint64
}

var _ memory.Writer = applying{}

func (a applying) Put(ctx context.Context, items []memory.Item) (memory.Written, error) {
	return a.s.put(ctx, a.seq, items)
}

func (a applying) Delete(ctx context.Context, ids []string, workspaces []string) (memory.Written, error) {
	missing, err := a.s.delete(ctx, a.seq, ids, workspaces)
	return memory.Written{Missing: missing}, err
}

func (a applying) StartSource(ctx context.Context, src memory.SourceRecord) (memory.Written, error) {
	return a.s.startSource(ctx, a.seq, src)
}

func (a applying) PutSourcePart(ctx context.Context, src memory.SourceRecord, items []memory.Item, last bool) (memory.Written, error) {
	return a.s.putSourcePart(ctx, a.seq, src, items, last)
}

func (a applying) ReplaceSource(ctx context.Context, src memory.SourceRecord, items []memory.Item) (memory.Written, error) {
	return a.s.replaceSource(ctx, a.seq, src, items)
}

// Await returns at once: a store of its own holds every write it answered.
func (s *Store) Await(context.Context, uint64) error { return nil }

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
	return s.inTx(ctx, seq, "skipping an event", func(*sql.Tx) error { return nil })
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

// ItemIDs lists the ids of the items of workspaces (every workspace when
// nil): a replicated forget names items by keyed digests of their ids,
// which only a replica holding the ids can match.
func (s *Store) ItemIDs(ctx context.Context, workspaces []string) ([]string, error) {
	inWS, wsArgs := workspaceSQL(workspaces)
	rows, err := s.query(ctx, `SELECT i.id FROM items i WHERE 1`+inWS, wsArgs...)
	if err != nil {
		return nil, s.storeErr("listing item ids", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, s.storeErr("listing item ids", err)
		}
		ids = append(ids, id)
	}
	return ids, s.storeErr("listing item ids", rows.Err())
}

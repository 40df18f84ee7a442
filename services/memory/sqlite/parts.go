package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// StartSource checks src's content hash before its parts are sent.
func (s *Store) StartSource(ctx context.Context, src memory.SourceRecord) (memory.Written, error) {
	return s.startSource(ctx, 0, src)
}

func (s *Store) startSource(ctx context.Context, seq uint64, src memory.SourceRecord) (memory.Written, error) {
	unchanged := false
	err := s.inTx(ctx, seq, "starting "+src.DisplayName, func(tx *sql.Tx) (err error) {
		if unchanged, err = s.sourceUnchanged(ctx, tx, src); unchanged || err != nil {
			return err
		}
		// Parts of this very version that an interrupted run stored stay
		// noted: sending them again only replays them.
		_, err = tx.ExecContext(ctx, `DELETE FROM source_parts WHERE workspace = ? AND source_id = ? AND content_hash != ?`,
			src.Workspace, src.ID, src.ContentHash)
		return err
	})
	return memory.Written{Unchanged: unchanged}, err
}

// PutSourcePart stores one part of src.
func (s *Store) PutSourcePart(ctx context.Context, src memory.SourceRecord, items []memory.Item, last bool) (memory.Written, error) {
	return s.putSourcePart(ctx, 0, src, items, last)
}

func (s *Store) putSourcePart(ctx context.Context, seq uint64, src memory.SourceRecord, items []memory.Item, last bool) (memory.Written, error) {
	var replayed []bool
	err := s.inTx(ctx, seq, "storing part of "+src.DisplayName, func(tx *sql.Tx) error {
		var err error
		if replayed, err = s.putTx(ctx, tx, items); err != nil {
			return err
		}
		note, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO source_parts (workspace, source_id, content_hash, item_id) VALUES (?,?,?,?)`)
		if err != nil {
			return err
		}
		defer note.Close()
		for _, it := range items {
			if _, err := note.ExecContext(ctx, src.Workspace, src.ID, src.ContentHash, it.ID); err != nil {
				return err
			}
		}
		if !last {
			return nil
		}
		forget := func() error {
			_, err := tx.ExecContext(ctx, `DELETE FROM source_parts WHERE workspace = ? AND source_id = ?`, src.Workspace, src.ID)
			return err
		}
		// Another run that sent this same version finished first (and
		// forgot what its parts noted): the old chunks are gone already.
		if done, err := s.sourceUnchanged(ctx, tx, src); done || err != nil {
			return errors.Join(err, forget())
		}
		// The same file in another workspace is another source: its
		// chunks stay.
		if _, err := s.txStmt(ctx, tx, deleteUnnoted).ExecContext(ctx,
			src.Workspace, src.ID, src.ID, src.Workspace, src.ID, src.ContentHash); err != nil {
			return err
		}
		if err := forget(); err != nil {
			return err
		}
		return s.upsertSource(ctx, tx, src)
	})
	return memory.Written{Replayed: replayed}, err
}

// deleteUnnoted deletes a source's items but those the parts of one
// version noted.
const deleteUnnoted = `DELETE FROM items AS i WHERE ` + sourceItems + ` AND i.id NOT IN
	(SELECT item_id FROM source_parts WHERE workspace = ? AND source_id = ? AND content_hash = ?)`

const selectSourceHash = `SELECT content_hash FROM sources WHERE workspace = ? AND source_id = ?`

// sourceUnchanged tells whether src is stored with its content hash.
func (s *Store) sourceUnchanged(ctx context.Context, tx *sql.Tx, src memory.SourceRecord) (bool, error) {
	var hash string
	err := s.txStmt(ctx, tx, selectSourceHash).QueryRowContext(ctx, src.Workspace, src.ID).Scan(&hash)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil && hash == src.ContentHash, err
}

const upsertSourceSQL = `INSERT INTO sources (workspace, source_id, source_kind, display_name, content_hash, updated_ms)
	VALUES (?,?,?,?,?, CAST(unixepoch('subsec') * 1000 AS INTEGER))
	ON CONFLICT(workspace, source_id) DO UPDATE SET source_kind = excluded.source_kind, display_name = excluded.display_name,
	content_hash = excluded.content_hash, updated_ms = excluded.updated_ms`

// upsertSource records src as stored with its content hash.
func (s *Store) upsertSource(ctx context.Context, tx *sql.Tx, src memory.SourceRecord) error {
	_, err := s.txStmt(ctx, tx, upsertSourceSQL).ExecContext(ctx, src.Workspace, src.ID, src.Kind, src.DisplayName, src.ContentHash)
	return err
}

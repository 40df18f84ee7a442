package sqlite

import (
	"context"
	"encoding/binary"
	"math"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// Vectors are float32 little-endian BLOBs, one row per item and model. vid
// counts insertions, so a reader can ask for what is new since its mark;
// the vector_deletions log, filled by a trigger when items are deleted,
// does the same for removals.

const insertVector = `INSERT INTO item_vectors (seq, model, dim, vec)
	SELECT seq, ?, ?, ? FROM items WHERE seq = ? ON CONFLICT(seq, model) DO NOTHING`

// PutVectors stores vectors; an item deleted meanwhile gets none. Vectors
// can always be computed again (a missing one is found by Unembedded), so
// their commit skips the fsync that items get: the connection is pinned,
// switched to synchronous=NORMAL for this one transaction, and switched
// back before anything else can use it.
func (s *Store) PutVectors(ctx context.Context, model string, vs []memory.Embedded) error {
	if len(vs) == 0 {
		return nil
	}
	// Prepared before the writer's one connection is pinned, as inTx does.
	if _, err := s.stmt(ctx, s.write, insertVector); err != nil {
		return s.storeErr("storing vectors", err)
	}
	conn, err := s.write.Conn(ctx)
	if err != nil {
		return s.storeErr("storing vectors", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
		return s.storeErr("storing vectors", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA synchronous = FULL`)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return s.storeErr("storing vectors", err)
	}
	defer tx.Rollback()
	ins := s.txStmt(ctx, tx, insertVector)
	for _, v := range vs {
		if _, err := ins.ExecContext(ctx, model, len(v.Vector), encodeVector(v.Vector), v.Seq); err != nil {
			return s.storeErr("storing vectors", err)
		}
	}
	return s.storeErr("storing vectors", tx.Commit())
}

// Unembedded lists items without a vector of model, oldest first, with
// their seq and text only.
func (s *Store) Unembedded(ctx context.Context, model string, after int64, limit int) ([]memory.Item, error) {
	rows, err := s.query(ctx, `SELECT i.seq, i.text FROM items i
		WHERE i.seq > ? AND NOT EXISTS (SELECT 1 FROM item_vectors v WHERE v.seq = i.seq AND v.model = ?)
		ORDER BY i.seq LIMIT ?`, after, model, limit)
	if err != nil {
		return nil, s.storeErr("finding items to embed", err)
	}
	defer rows.Close()
	var items []memory.Item
	for rows.Next() {
		var it memory.Item
		if err := rows.Scan(&it.Seq, &it.Text); err != nil {
			return nil, s.storeErr("finding items to embed", err)
		}
		items = append(items, it)
	}
	return items, s.storeErr("finding items to embed", rows.Err())
}

// CountUnembedded counts what Unembedded would list without a limit.
func (s *Store) CountUnembedded(ctx context.Context, model string, after int64) (int64, error) {
	var n int64
	err := s.scalar(ctx, `SELECT count(*) FROM items i
		WHERE i.seq > ? AND NOT EXISTS (SELECT 1 FROM item_vectors v WHERE v.seq = i.seq AND v.model = ?)`, &n, after, model)
	return n, err
}

// VectorChanges reads vectors and deletions newer than the marks.
func (s *Store) VectorChanges(ctx context.Context, model string, addMark, delMark int64,
	add func(seq int64, v []float32), remove func(seq int64)) (int64, int64, error) {
	rows, err := s.query(ctx, `SELECT vid, seq, vec FROM item_vectors WHERE vid > ? AND model = ? ORDER BY vid`, addMark, model)
	if err != nil {
		return addMark, delMark, s.storeErr("reading vectors", err)
	}
	newAdd := addMark
	for rows.Next() {
		var vid, seq int64
		var blob []byte
		if err := rows.Scan(&vid, &seq, &blob); err != nil {
			rows.Close()
			return addMark, delMark, s.storeErr("reading vectors", err)
		}
		add(seq, decodeVector(blob))
		newAdd = vid
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return addMark, delMark, s.storeErr("reading vectors", err)
	}
	// Vectors of other models advance the mark too, so they are not read again.
	if err := s.scalar(ctx, `SELECT coalesce(max(vid), 0) FROM item_vectors`, &newAdd); err != nil {
		return addMark, delMark, err
	}
	newAdd = max(newAdd, addMark)
	newDel, err := s.deletions(ctx, delMark, remove)
	return newAdd, newDel, err
}

// DropVectorsExcept deletes other models' vectors.
func (s *Store) DropVectorsExcept(ctx context.Context, model string) (int64, error) {
	res, err := s.write.ExecContext(ctx, `DELETE FROM item_vectors WHERE model != ?`, model)
	if err != nil {
		return 0, s.storeErr("dropping old vectors", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func decodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

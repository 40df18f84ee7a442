package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// ReplaceSource stores a source's items, replacing what it held before.
func (s *Store) ReplaceSource(ctx context.Context, src memory.SourceRecord, items []memory.Item) (memory.Written, error) {
	return s.replaceSource(ctx, 0, src, items)
}

func (s *Store) replaceSource(ctx context.Context, seq uint64, src memory.SourceRecord, items []memory.Item) (memory.Written, error) {
	unchanged := false
	var replayed []bool
	err := s.inTx(ctx, seq, "storing "+src.DisplayName, func(tx *sql.Tx) (err error) {
		if unchanged, err = s.sourceUnchanged(ctx, tx, src); unchanged || err != nil {
			return err
		}
		// Chunks that did not change keep their rows (and vectors); the
		// rest of the old content goes, in this workspace only. The ids to
		// keep travel as one JSON array, so one prepared statement serves
		// every file.
		keep := make([]string, len(items))
		for i, it := range items {
			keep[i] = it.ID
		}
		list, _ := json.Marshal(keep)
		if _, err := s.txStmt(ctx, tx, deleteReplaced).ExecContext(ctx, src.Workspace, src.ID, src.ID, string(list)); err != nil {
			return err
		}
		if replayed, err = s.putTx(ctx, tx, items); err != nil {
			return err
		}
		return s.upsertSource(ctx, tx, src)
	})
	return memory.Written{Unchanged: unchanged, Replayed: replayed}, err
}

// sourceItems limits alias i to the items of one ingested source, its
// workspace, id and id again: an ingested item's key (sourceIDExpr) is its
// source id, and naming the key lets SQLite find the items by
// items_source_key instead of reading every row.
const sourceItems = `i.workspace = ? AND ` + sourceIDExpr + ` = ? AND i.source_id = ?`

// deleteReplaced deletes a source's items but those whose ids a JSON array
// lists.
const deleteReplaced = `DELETE FROM items AS i WHERE ` + sourceItems + ` AND i.id NOT IN (SELECT value FROM json_each(?))`

// Item reads one item by id. One of a workspace not among workspaces is
// not found, with the very error of an id never stored.
func (s *Store) Item(ctx context.Context, id string, workspaces []string) (memory.Item, error) {
	inWS, wsArgs := workspaceSQL(workspaces)
	rows, err := s.query(ctx, `SELECT `+itemColumns+` FROM items i WHERE i.id = ?`+inWS, append([]any{id}, wsArgs...)...)
	if err != nil {
		return memory.Item{}, s.storeErr("reading an item", err)
	}
	items, err := scanItems(rows)
	if err != nil {
		return memory.Item{}, s.storeErr("reading an item", err)
	}
	if len(items) == 0 {
		return memory.Item{}, contract.Errorf(contract.CodeNotFound, "no chunk %q in memory: ids come from memory.fetch (memory.search in v1), memory.recall or tree.browse", id).With("chunk_id", id)
	}
	return items[0], nil
}

// sourceIDExpr is an item's source id as the tree shows it: the source it
// was ingested from, or for learnings whoever wrote them. The index
// items_source_key and the table source_counts are keyed by it, spelled
// the same (SQLite uses an index on an expression only for that
// expression).
const sourceIDExpr = `coalesce(nullif(i.source_id, ''), i.provenance)`

// Browse lists items matching q.
func (s *Store) Browse(ctx context.Context, q memory.BrowseQuery) ([]memory.Item, int, error) {
	var where strings.Builder
	var args []any
	in := func(expr string, vs []string) {
		if len(vs) == 0 {
			return
		}
		where.WriteString(" AND " + expr + " IN (" + placeholders(len(vs)) + ")")
		for _, v := range vs {
			args = append(args, v)
		}
	}
	in("i.source", q.SourceKinds)
	in(sourceIDExpr, q.SourceIDs)
	if len(q.EntityIDs) > 0 {
		where.WriteString(" AND EXISTS (SELECT 1 FROM entities e WHERE e.seq = i.seq AND e.entity_id IN (" + placeholders(len(q.EntityIDs)) + "))")
		for _, v := range q.EntityIDs {
			args = append(args, v)
		}
	}
	if q.SinceMS > 0 {
		where.WriteString(" AND i.observed_at >= ?")
		args = append(args, q.SinceMS)
	}
	if q.UntilMS > 0 {
		where.WriteString(" AND i.observed_at < ?")
		args = append(args, q.UntilMS)
	}
	if q.Seqs != nil {
		list, _ := json.Marshal(q.Seqs)
		where.WriteString(" AND i.seq IN (SELECT value FROM json_each(?))")
		args = append(args, string(list))
	}
	inWS, wsArgs := workspaceSQL(q.Workspaces)
	where.WriteString(inWS)
	args = append(args, wsArgs...)
	var total int
	if err := s.scalar(ctx, `SELECT count(*) FROM items i WHERE 1=1`+where.String(), &total, args...); err != nil {
		return nil, 0, err
	}
	rows, err := s.query(ctx, `SELECT `+itemColumns+` FROM items i WHERE 1=1`+where.String()+
		` ORDER BY i.observed_at DESC, i.seq DESC LIMIT ? OFFSET ?`, append(args, q.K, q.Offset)...)
	if err != nil {
		return nil, 0, s.storeErr("browsing", err)
	}
	items, err := scanItems(rows)
	return items, total, s.storeErr("browsing", err)
}

// TopEntities counts mentions per entity.
func (s *Store) TopEntities(ctx context.Context, kind string, k int, workspaces []string) ([]memory.EntityCount, error) {
	from, where, args := "entities e", " WHERE 1=1", []any{}
	if kind != "" {
		where, args = where+" AND e.kind = ?", append(args, kind)
	}
	if workspaces != nil {
		// Only a limited caller pays for the join.
		inWS, wsArgs := workspaceSQL(workspaces)
		from, where, args = "entities e JOIN items i ON i.seq = e.seq", where+inWS, append(args, wsArgs...)
	}
	rows, err := s.query(ctx, `SELECT e.entity_id, e.kind, min(e.surface), count(*) AS n FROM `+from+where+
		` GROUP BY e.entity_id ORDER BY n DESC, e.entity_id LIMIT ?`, append(args, k)...)
	if err != nil {
		return nil, s.storeErr("counting entities", err)
	}
	defer rows.Close()
	out := []memory.EntityCount{}
	for rows.Next() {
		var e memory.EntityCount
		if err := rows.Scan(&e.ID, &e.Kind, &e.Surface, &e.Count); err != nil {
			return nil, s.storeErr("counting entities", err)
		}
		out = append(out, e)
	}
	return out, s.storeErr("counting entities", rows.Err())
}

// Sources summarizes items per source from source_counts, which the
// triggers on items keep: what it costs grows with the sources listed, not
// with the items they hold. A source of several workspaces the caller sees
// is one row, as grouping its items makes it, named as the source of its
// newest item is (the first stored among equals).
func (s *Store) Sources(ctx context.Context, workspaces []string) ([]memory.SourceSummary, error) {
	inWS, wsArgs := workspaceIn("c.workspace", workspaces)
	rows, err := s.query(ctx, sourcesQuery(inWS), wsArgs...)
	if err != nil {
		return nil, s.storeErr("listing sources", err)
	}
	defer rows.Close()
	type key struct{ id, kind string }
	type row struct {
		memory.SourceSummary
		newestSeq int64
	}
	merged := map[key]*row{}
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.SourceID, &r.SourceKind, &r.ChunkCount, &r.MostRecentMS, &r.newestSeq, &r.DisplayName); err != nil {
			return nil, s.storeErr("listing sources", err)
		}
		m, ok := merged[key{r.SourceID, r.SourceKind}]
		switch {
		case !ok:
			merged[key{r.SourceID, r.SourceKind}] = &r
			continue
		case r.MostRecentMS > m.MostRecentMS || r.MostRecentMS == m.MostRecentMS && r.newestSeq < m.newestSeq:
			m.MostRecentMS, m.newestSeq, m.DisplayName = r.MostRecentMS, r.newestSeq, r.DisplayName
		}
		m.ChunkCount += r.ChunkCount
	}
	if err := rows.Err(); err != nil {
		return nil, s.storeErr("listing sources", err)
	}
	out := make([]memory.SourceSummary, 0, len(merged))
	for _, r := range merged {
		if r.DisplayName == "" {
			r.DisplayName = r.SourceID
		}
		out = append(out, r.SourceSummary)
	}
	slices.SortFunc(out, func(a, b memory.SourceSummary) int {
		return cmp.Or(cmp.Compare(b.MostRecentMS, a.MostRecentMS), cmp.Compare(a.SourceID, b.SourceID), cmp.Compare(a.SourceKind, b.SourceKind))
	})
	return out, nil
}

// sourcesQuery reads the counts of the workspaces inWS (alias c) lets
// through, with the name of each one's source.
func sourcesQuery(inWS string) string {
	return `SELECT c.source_key, c.source_kind, c.chunk_count, c.most_recent_ms, c.newest_seq, coalesce(s.display_name, '')
		FROM source_counts c LEFT JOIN sources s ON s.workspace = c.workspace AND s.source_id = c.source_id
		WHERE 1=1` + inWS
}

package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

var _ memory.Store = (*Store)(nil)

const itemColumns = `i.seq, i.id, i.kind, i.learning_kind, i.text, i.confidence, i.source, i.provenance,
	i.workspace, i.folder, i.file_path, i.language, i.repo, i.commit_sha, i.url, i.thread_id, i.agent_id,
	i.tags, i.observed_at, i.created_at, i.source_id, i.source_ref, i.token_count`

const insertItem = `INSERT INTO items (id, kind, learning_kind, text, confidence, source, provenance,
	workspace, folder, file_path, language, repo, commit_sha, url, thread_id, agent_id, tags, observed_at, created_at,
	source_id, source_ref, token_count)
	VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(id) DO NOTHING`

const insertEntity = `INSERT OR IGNORE INTO entities (seq, entity_id, kind, surface) VALUES (?,?,?,?)`

// Put inserts items in one transaction; an existing id makes an item a
// replay and changes nothing.
func (s *Store) Put(ctx context.Context, items []memory.Item) (memory.Written, error) {
	return s.put(ctx, 0, items)
}

func (s *Store) put(ctx context.Context, seq uint64, items []memory.Item) (w memory.Written, err error) {
	err = s.inTx(ctx, seq, "storing items", func(tx *sql.Tx) error {
		w.Replayed, err = s.putTx(ctx, tx, items)
		return err
	})
	return w, err
}

// txQueries are what write transactions run through txStmt.
var txQueries = []string{insertItem, insertEntity, selectSourceHash, upsertSourceSQL, deleteReplaced, deleteUnnoted}

// inTx runs fn in a write transaction, which records seq as applied when
// it is the write stream's event seq (not 0). Statements are prepared
// before it begins: the writer pool has one connection, which the
// transaction holds.
func (s *Store) inTx(ctx context.Context, seq uint64, doing string, fn func(*sql.Tx) error) error {
	for _, q := range txQueries {
		if _, err := s.stmt(ctx, s.write, q); err != nil {
			return s.storeErr(doing, err)
		}
	}
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return s.storeErr(doing, err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return s.storeErr(doing, err)
	}
	if err := markApplied(ctx, tx, seq); err != nil {
		return s.storeErr(doing, err)
	}
	return s.storeErr(doing, tx.Commit())
}

// txStmt is a cached statement bound to tx; query must be among txQueries.
func (s *Store) txStmt(ctx context.Context, tx *sql.Tx, query string) *sql.Stmt {
	st, _ := s.stmts.Load("w\x00" + query)
	return tx.StmtContext(ctx, st.(*sql.Stmt))
}

func (s *Store) putTx(ctx context.Context, tx *sql.Tx, items []memory.Item) ([]bool, error) {
	ins, ent := s.txStmt(ctx, tx, insertItem), s.txStmt(ctx, tx, insertEntity)
	replayed := make([]bool, len(items))
	for i, it := range items {
		tags, _ := json.Marshal(nonNil(it.Tags))
		res, err := ins.ExecContext(ctx, it.ID, it.Kind, it.LearningKind, it.Text, it.Confidence, it.Source, it.Provenance,
			it.Meta.Workspace, it.Meta.Folder, it.Meta.FilePath, it.Meta.Language, it.Meta.Repo, it.Meta.Commit,
			it.Meta.URL, it.Meta.ThreadID, it.Meta.AgentID, string(tags), it.ObservedAt.UnixMilli(), it.CreatedAt.UnixMilli(),
			it.SourceID, it.SourceRef, it.TokenCount)
		if err != nil {
			return nil, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, err
		}
		replayed[i] = n == 0
		if n == 0 || len(it.Entities) == 0 {
			continue
		}
		seq, err := res.LastInsertId()
		if err != nil {
			return nil, err
		}
		for _, e := range it.Entities {
			if _, err := ent.ExecContext(ctx, seq, e.ID, e.Kind, e.Surface); err != nil {
				return nil, err
			}
		}
	}
	return replayed, nil
}

// List returns items newest first.
func (s *Store) List(ctx context.Context, f *memory.Filter, before int64, limit int) ([]memory.Item, error) {
	where, args := filterSQL(f)
	if before > 0 {
		where += " AND i.seq < ?"
		args = append(args, before)
	}
	rows, err := s.query(ctx, `SELECT `+itemColumns+` FROM items i WHERE 1=1`+where+` ORDER BY i.seq DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, s.storeErr("listing items", err)
	}
	items, err := scanItems(rows)
	return items, s.storeErr("listing items", err)
}

// Matching returns the seqs of items passing f, ascending.
func (s *Store) Matching(ctx context.Context, f *memory.Filter, asOf int64) ([]int64, error) {
	where, args := filterSQL(f)
	rows, err := s.query(ctx, `SELECT i.seq FROM items i WHERE i.seq <= ?`+where+` ORDER BY i.seq`, append([]any{asOf}, args...)...)
	if err != nil {
		return nil, s.storeErr("filtering", err)
	}
	defer rows.Close()
	out := []int64{}
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			return nil, s.storeErr("filtering", err)
		}
		out = append(out, seq)
	}
	return out, s.storeErr("filtering", rows.Err())
}

// Items reads items by seq. The seqs travel as one JSON array so that a
// single prepared statement serves every page size: preparing the SQL
// afresh would cost more than reading the rows.
func (s *Store) Items(ctx context.Context, seqs []int64) (map[int64]memory.Item, error) {
	out := make(map[int64]memory.Item, len(seqs))
	if len(seqs) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(seqs)
	rows, err := s.lookup(ctx, `SELECT `+itemColumns+` FROM items i WHERE i.seq IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return nil, s.storeErr("reading items", err)
	}
	items, err := scanItems(rows)
	if err != nil {
		return nil, s.storeErr("reading items", err)
	}
	for _, it := range items {
		out[it.Seq] = it
	}
	return out, nil
}

// ItemChanges reads what the keyword index needs of the items stored after
// addMark, and the items deleted after delMark.
func (s *Store) ItemChanges(ctx context.Context, addMark, delMark int64,
	add func(memory.ItemChange), remove func(seq int64)) (int64, int64, error) {
	// Deletions first: an item deleted since is then not added at all, and
	// one deleted and not yet read is not yet indexed.
	newDel, err := s.deletions(ctx, delMark, remove)
	if err != nil {
		return addMark, delMark, err
	}
	rows, err := s.query(ctx, `SELECT seq, text, learning_kind, kind, thread_id, observed_at FROM items WHERE seq > ? ORDER BY seq`, addMark)
	if err != nil {
		return addMark, delMark, s.storeErr("reading items", err)
	}
	defer rows.Close()
	newAdd := addMark
	for rows.Next() {
		var c memory.ItemChange
		if err := rows.Scan(&c.Seq, &c.Text, &c.LearningKind, &c.Kind, &c.ThreadID, &c.ObservedAt); err != nil {
			return addMark, delMark, s.storeErr("reading items", err)
		}
		add(c)
		newAdd = c.Seq
	}
	if err := rows.Err(); err != nil {
		return addMark, delMark, s.storeErr("reading items", err)
	}
	return max(newAdd, addMark), newDel, nil
}

// deletions calls remove for each item deleted after mark (the log a
// trigger on items keeps) and returns the new mark.
func (s *Store) deletions(ctx context.Context, mark int64, remove func(seq int64)) (int64, error) {
	rows, err := s.query(ctx, `SELECT id, seq FROM vector_deletions WHERE id > ? ORDER BY id`, mark)
	if err != nil {
		return mark, s.storeErr("reading deletions", err)
	}
	defer rows.Close()
	newMark := mark
	for rows.Next() {
		var id, seq int64
		if err := rows.Scan(&id, &seq); err != nil {
			return mark, s.storeErr("reading deletions", err)
		}
		remove(seq)
		newMark = id
	}
	if err := rows.Err(); err != nil {
		return mark, s.storeErr("reading deletions", err)
	}
	return newMark, nil
}

// Delete removes items of workspaces (every workspace when nil); a trigger
// logs each deletion for the in-memory indexes to follow, and
// secure_delete zeroes the freed pages. The WAL is then checkpointed so no
// old copy of the text lingers there either.
//
// A source that lost an item loses its content hash too: the hash is of
// the whole file, forgotten part included, so it would confirm a guess of
// that part, and it no longer describes what is stored (ingesting the file
// again stores it again instead of calling it unchanged). A source left
// with no items goes.
func (s *Store) Delete(ctx context.Context, ids []string, workspaces []string) (memory.Written, error) {
	missing, err := s.delete(ctx, 0, ids, workspaces)
	return memory.Written{Missing: missing}, err
}

func (s *Store) delete(ctx context.Context, seq uint64, ids []string, workspaces []string) ([]string, error) {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, s.storeErr("forgetting items", err)
	}
	defer tx.Rollback()
	inWS, wsArgs := workspaceSQL(workspaces)
	var missing []string
	type sourceKey struct{ workspace, id string }
	sources := map[sourceKey]bool{}
	for _, id := range ids {
		var src sourceKey
		err := tx.QueryRowContext(ctx, `DELETE FROM items AS i WHERE i.id = ?`+inWS+` RETURNING workspace, source_id`,
			append([]any{id}, wsArgs...)...).Scan(&src.workspace, &src.id)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			missing = append(missing, id)
		case err != nil:
			return nil, s.storeErr("forgetting items", err)
		case src.id != "":
			sources[src] = true
		}
	}
	for src := range sources {
		if _, err := tx.ExecContext(ctx, `UPDATE sources SET content_hash = '' WHERE workspace = ? AND source_id = ?`, src.workspace, src.id); err != nil {
			return nil, s.storeErr("forgetting items", err)
		}
		if _, err := tx.ExecContext(ctx, deleteEmptySource, src.workspace, src.id, src.workspace, src.id, src.id); err != nil {
			return nil, s.storeErr("forgetting items", err)
		}
	}
	if err := markApplied(ctx, tx, seq); err != nil {
		return nil, s.storeErr("forgetting items", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, s.storeErr("forgetting items", err)
	}
	// Best effort: a reader in another process may hold old frames a while longer.
	_, _ = s.write.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return missing, nil
}

// deleteEmptySource drops the record of a source (its workspace and id)
// that has no item left, as its counts tell.
const deleteEmptySource = `DELETE FROM sources WHERE workspace = ? AND source_id = ?
	AND NOT EXISTS (SELECT 1 FROM source_counts c WHERE c.workspace = ? AND c.source_key = ? AND c.source_id = ?)`

// query runs a read through the statement cache.
func (s *Store) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := s.stmt(ctx, s.read, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// lookup runs a read that touches a handful of rows by key. The driver
// watches a cancellable context with a goroutine per query, which costs
// more than such a query itself; a lookup cannot run long, so it is only
// refused when ctx is already done.
func (s *Store) lookup(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.query(context.WithoutCancel(ctx), query, args...)
}

// scalar reads the first row of a read into dst.
func (s *Store) scalar(ctx context.Context, query string, dst any, args ...any) error {
	rows, err := s.query(ctx, query, args...)
	return s.firstRow(rows, err, dst)
}

// lookups reads the first row of a lookup (see lookup) into dsts.
func (s *Store) lookups(ctx context.Context, query string, dsts []any, args ...any) error {
	rows, err := s.lookup(ctx, query, args...)
	return s.firstRow(rows, err, dsts...)
}

func (s *Store) firstRow(rows *sql.Rows, err error, dsts ...any) error {
	if err != nil {
		return s.storeErr("reading", err)
	}
	defer rows.Close()
	if rows.Next() {
		if err := rows.Scan(dsts...); err != nil {
			return s.storeErr("reading", err)
		}
	}
	return s.storeErr("reading", rows.Err())
}

// filterSQL turns a filter into " AND ..." clauses over alias i.
func filterSQL(f *memory.Filter) (string, []any) {
	if f == nil {
		return "", nil
	}
	var b strings.Builder
	var args []any
	eq := func(col, v string) {
		if v != "" {
			b.WriteString(" AND i." + col + " = ?")
			args = append(args, v)
		}
	}
	eq("workspace", f.Workspace)
	eq("folder", f.Folder)
	eq("file_path", f.FilePath)
	eq("language", f.Language)
	eq("repo", f.Repo)
	eq("commit_sha", f.Commit)
	eq("url", f.URL)
	eq("thread_id", f.ThreadID)
	eq("agent_id", f.AgentID)
	in := func(col string, vs []string) {
		if len(vs) > 0 {
			b.WriteString(" AND i." + col + " IN (" + placeholders(len(vs)) + ")")
			for _, v := range vs {
				args = append(args, v)
			}
		}
	}
	in("kind", f.Kinds)
	in("source", f.Sources)
	in("learning_kind", f.LearningKinds)
	if len(f.SourceIDs) > 0 {
		b.WriteString(" AND " + sourceIDExpr + " IN (" + placeholders(len(f.SourceIDs)) + ")")
		for _, v := range f.SourceIDs {
			args = append(args, v)
		}
	}
	if f.Workspaces != nil {
		where, ws := workspaceSQL(f.Workspaces)
		b.WriteString(where)
		args = append(args, ws...)
	}
	if len(f.TagsAny) > 0 {
		b.WriteString(" AND EXISTS (SELECT 1 FROM json_each(i.tags) WHERE json_each.value IN (" + placeholders(len(f.TagsAny)) + "))")
		for _, v := range f.TagsAny {
			args = append(args, v)
		}
	}
	if f.ObservedAfter != nil {
		b.WriteString(" AND i.observed_at >= ?")
		args = append(args, f.ObservedAfter.UnixMilli())
	}
	if f.ObservedBefore != nil {
		b.WriteString(" AND i.observed_at < ?")
		args = append(args, f.ObservedBefore.UnixMilli())
	}
	return b.String(), args
}

// workspaceSQL limits alias i to workspaces; nil limits nothing, and an
// empty list lets nothing through.
func workspaceSQL(workspaces []string) (string, []any) { return workspaceIn("i.workspace", workspaces) }

// workspaceIn limits column col to workspaces as workspaceSQL does.
func workspaceIn(col string, workspaces []string) (string, []any) {
	if workspaces == nil {
		return "", nil
	}
	if len(workspaces) == 0 {
		return " AND 0", nil
	}
	args := make([]any, len(workspaces))
	named := true
	for i, ws := range workspaces {
		args[i] = ws
		named = named && ws != ""
	}
	where := " AND " + col + " IN (" + placeholders(len(workspaces)) + ")"
	if named {
		// Spelled out, it lets SQLite read the partial index on workspace
		// instead of every row.
		where += " AND " + col + " != ''"
	}
	return where, args
}

func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

func scanItems(rows *sql.Rows) ([]memory.Item, error) {
	defer rows.Close()
	var out []memory.Item
	for rows.Next() {
		var (
			it       memory.Item
			conf     sql.NullFloat64
			tags     string
			obs, crt int64
		)
		if err := rows.Scan(&it.Seq, &it.ID, &it.Kind, &it.LearningKind, &it.Text, &conf, &it.Source, &it.Provenance,
			&it.Meta.Workspace, &it.Meta.Folder, &it.Meta.FilePath, &it.Meta.Language, &it.Meta.Repo, &it.Meta.Commit,
			&it.Meta.URL, &it.Meta.ThreadID, &it.Meta.AgentID, &tags, &obs, &crt, &it.SourceID, &it.SourceRef, &it.TokenCount); err != nil {
			return nil, err
		}
		if conf.Valid {
			it.Confidence = &conf.Float64
		}
		_ = json.Unmarshal([]byte(tags), &it.Tags)
		it.ObservedAt, it.CreatedAt = time.UnixMilli(obs).UTC(), time.UnixMilli(crt).UTC()
		out = append(out, it)
	}
	return out, rows.Err()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

var _ memory.Store = (*Store)(nil)

const itemColumns = `i.seq, i.id, i.kind, i.learning_kind, i.text, i.confidence, i.source, i.provenance,
	i.workspace, i.folder, i.file_path, i.language, i.repo, i.commit_sha, i.url, i.thread_id, i.agent_id,
	i.tags, i.observed_at, i.created_at`

// Put inserts item; an existing id makes it a replay and changes nothing.
func (s *Store) Put(ctx context.Context, it memory.Item) (bool, error) {
	tags, _ := json.Marshal(nonNil(it.Tags))
	st, err := s.stmt(ctx, s.write, `INSERT INTO items (id, kind, learning_kind, text, confidence, source, provenance,
		workspace, folder, file_path, language, repo, commit_sha, url, thread_id, agent_id, tags, observed_at, created_at)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(id) DO NOTHING`)
	if err != nil {
		return false, storeErr("storing an item", err)
	}
	res, err := st.ExecContext(ctx,
		it.ID, it.Kind, it.LearningKind, it.Text, it.Confidence, it.Source, it.Provenance,
		it.Meta.Workspace, it.Meta.Folder, it.Meta.FilePath, it.Meta.Language, it.Meta.Repo, it.Meta.Commit,
		it.Meta.URL, it.Meta.ThreadID, it.Meta.AgentID, string(tags), it.ObservedAt.UnixMilli(), it.CreatedAt.UnixMilli())
	if err != nil {
		return false, storeErr("storing an item", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, storeErr("storing an item", err)
	}
	return n == 0, nil
}

// List pages newest first; the cursor holds the last seq seen, so pages stay
// consistent while other writers add items.
func (s *Store) List(ctx context.Context, f *memory.Filter, page memory.Page) ([]memory.Item, string, error) {
	fp := fingerprint("list", f)
	var c cursor
	if err := c.decode(page.Cursor, fp); err != nil {
		return nil, "", err
	}
	where, args := filterSQL(f)
	if c.Seq > 0 {
		where += " AND i.seq < ?"
		args = append(args, c.Seq)
	}
	args = append(args, page.Limit+1)
	rows, err := s.query(ctx, `SELECT `+itemColumns+` FROM items i WHERE 1=1`+where+` ORDER BY i.seq DESC LIMIT ?`, args...)
	if err != nil {
		return nil, "", storeErr("listing items", err)
	}
	items, err := scanItems(rows, nil)
	if err != nil {
		return nil, "", storeErr("listing items", err)
	}
	next := ""
	if len(items) > page.Limit {
		items = items[:page.Limit]
		next = cursor{Seq: items[len(items)-1].Seq, For: fp}.encode()
	}
	return items, next, nil
}

// Search ranks items containing any term by BM25.
func (s *Store) Search(ctx context.Context, terms []string, f *memory.Filter, page memory.Page) ([]memory.Scored, string, error) {
	fp := fingerprint("search", struct {
		T []string
		F *memory.Filter
	}{terms, f})
	var c cursor
	if err := c.decode(page.Cursor, fp); err != nil {
		return nil, "", err
	}
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	match := strings.Join(quoted, " OR ")
	where, args := filterSQL(f)
	var query string
	if where == "" {
		// No filter: rank inside the index and read only the page's rows
		// from items, instead of joining every match before sorting.
		query = `SELECT ` + itemColumns + `, m.rank FROM (SELECT rowid, bm25(items_fts) AS rank FROM items_fts
			WHERE items_fts MATCH ? ORDER BY rank, rowid DESC LIMIT ? OFFSET ?) m JOIN items i ON i.seq = m.rowid
			ORDER BY m.rank, i.seq DESC`
		args = []any{match, page.Limit + 1, c.Offset}
	} else {
		query = `SELECT ` + itemColumns + `, bm25(items_fts) AS rank
			FROM items_fts JOIN items i ON i.seq = items_fts.rowid
			WHERE items_fts MATCH ?` + where + ` ORDER BY rank, i.seq DESC LIMIT ? OFFSET ?`
		args = append(append([]any{match}, args...), page.Limit+1, c.Offset)
	}
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return nil, "", storeErr("searching", err)
	}
	var ranks []float64
	items, err := scanItems(rows, &ranks)
	if err != nil {
		return nil, "", storeErr("searching", err)
	}
	next := ""
	if len(items) > page.Limit {
		items = items[:page.Limit]
		next = cursor{Offset: c.Offset + page.Limit, For: fp}.encode()
	}
	out := make([]memory.Scored, len(items))
	for i, it := range items {
		// bm25() is lower-is-better and negative; flip it so a higher score is a better hit.
		out[i] = memory.Scored{Item: it, Score: -ranks[i]}
	}
	return out, next, nil
}

// Delete removes items; the FTS trigger removes their index entries and
// secure_delete zeroes the freed pages. The WAL is then checkpointed so no
// old copy of the text lingers there either.
func (s *Store) Delete(ctx context.Context, ids []string) ([]string, error) {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, storeErr("forgetting items", err)
	}
	defer tx.Rollback()
	var missing []string
	for _, id := range ids {
		res, err := tx.ExecContext(ctx, `DELETE FROM items WHERE id = ?`, id)
		if err != nil {
			return nil, storeErr("forgetting items", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			missing = append(missing, id)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, storeErr("forgetting items", err)
	}
	// Best effort: a reader in another process may hold old frames a while longer.
	_, _ = s.write.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return missing, nil
}

// query runs a read through the statement cache.
func (s *Store) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := s.stmt(ctx, s.read, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
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

func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

func scanItems(rows *sql.Rows, ranks *[]float64) ([]memory.Item, error) {
	defer rows.Close()
	var out []memory.Item
	for rows.Next() {
		var (
			it       memory.Item
			conf     sql.NullFloat64
			tags     string
			obs, crt int64
			rank     float64
			dest     = []any{&it.Seq, &it.ID, &it.Kind, &it.LearningKind, &it.Text, &conf, &it.Source, &it.Provenance,
				&it.Meta.Workspace, &it.Meta.Folder, &it.Meta.FilePath, &it.Meta.Language, &it.Meta.Repo, &it.Meta.Commit,
				&it.Meta.URL, &it.Meta.ThreadID, &it.Meta.AgentID, &tags, &obs, &crt}
		)
		if ranks != nil {
			dest = append(dest, &rank)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		if conf.Valid {
			it.Confidence = &conf.Float64
		}
		_ = json.Unmarshal([]byte(tags), &it.Tags)
		it.ObservedAt, it.CreatedAt = time.UnixMilli(obs).UTC(), time.UnixMilli(crt).UTC()
		out = append(out, it)
		if ranks != nil {
			*ranks = append(*ranks, rank)
		}
	}
	return out, rows.Err()
}

// cursor is the opaque position of a page. For ties it to the query and
// filter that made it, so a cursor reused with other arguments is refused
// instead of silently skipping or repeating items.
type cursor struct {
	Seq    int64  `json:"s,omitempty"`
	Offset int    `json:"o,omitempty"`
	For    string `json:"f"`
}

func (c cursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (c *cursor) decode(s, want string) error {
	if s == "" {
		return nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, c)
	}
	if err != nil || c.Seq < 0 || c.Offset < 0 {
		return contract.Errorf(contract.CodeInvalidRequest,
			"argument `cursor` is not a cursor this server made: pass next_cursor exactly as returned, or leave it out to start again").With("field", "cursor")
	}
	if c.For != want {
		return contract.Errorf(contract.CodeInvalidRequest,
			"argument `cursor` belongs to a different query or filter: repeat the original arguments with it, or leave it out to start again").With("field", "cursor")
	}
	return nil
}

func fingerprint(kind string, v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(append([]byte(kind+"\x00"), b...))
	return hex.EncodeToString(sum[:6])
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

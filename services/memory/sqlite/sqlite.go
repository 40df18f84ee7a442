// Package sqlite stores memory items in one SQLite file (modernc.org/sqlite,
// pure Go), with a log of deletions that the service's in-memory indexes
// follow.
//
// Several processes may open the same file at once (Claude Desktop and Cursor
// each launch one): WAL lets readers run beside the writer, every write
// transaction starts IMMEDIATE and waits on the busy timeout instead of
// failing, and synchronous=FULL makes an acknowledged write survive a crash.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/sqlitefile"
)

// Store is a SQLite-backed memory.Store.
type Store struct {
	Path string
	// BusyTimeout is how long a write waits for another process's write.
	BusyTimeout time.Duration

	write  *sql.DB // one connection: writes queue here rather than in SQLite's lock
	read   *sql.DB
	stmts  sync.Map // SQL text → *sql.Stmt on read or write; see stmt
	marks  marksCache
	shm    shmFile
	health health
}

// New returns a store for the file at path; Open does the I/O.
func New(path string) *Store { return &Store{Path: path, BusyTimeout: 30 * time.Second} }

// Open creates the file and its directory if needed, and migrates the schema.
func (s *Store) Open() error {
	if err := sqlitefile.Private(s.Path); err != nil {
		return fmt.Errorf("creating the memory file: %w", err)
	}
	var err error
	if s.write, err = sql.Open("sqlite", s.dsn(true)); err != nil {
		return err
	}
	s.write.SetMaxOpenConns(1)
	if s.read, err = sql.Open("sqlite", s.dsn(false)); err != nil {
		return err
	}
	readers := max(4, runtime.NumCPU())
	s.read.SetMaxOpenConns(readers)
	s.read.SetMaxIdleConns(readers) // reopening a connection re-reads the schema; keep them

	err = sqlitefile.RetryBusy(s.BusyTimeout, func() error { return s.migrate(context.Background()) })
	if err != nil {
		s.Close()
		return fmt.Errorf("opening %s: %w", s.Path, err)
	}
	openStores.add(s)
	s.startCheck()
	return nil
}

// Close closes the database.
func (s *Store) Close() error {
	s.stopCheck()
	openStores.remove(s)
	s.shm.mu.Lock()
	s.shm.close()
	s.shm.mu.Unlock()
	s.stmts.Range(func(_, v any) bool { v.(*sql.Stmt).Close(); return true })
	var err error
	for _, db := range []*sql.DB{s.read, s.write} {
		if db != nil {
			if e := db.Close(); e != nil && err == nil {
				err = e
			}
		}
	}
	return err
}

func (s *Store) dsn(writer bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", s.BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "cache_size(-16000)")
	if writer {
		// Overwrite deleted content with zeros: forgotten means gone from the file.
		q.Add("_pragma", "secure_delete(1)")
		q.Set("_txlock", "immediate")
	}
	return "file:" + s.Path + "?" + q.Encode()
}

// stmt returns a prepared statement for query on db, prepared once: parsing
// the SQL would otherwise cost as much as running it. Queries differ only by
// which filters are set, so the cache stays small. Never call it for the
// writer inside a write transaction: preparing needs the writer's only
// connection, which the transaction holds.
func (s *Store) stmt(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	key := query
	if db == s.write {
		key = "w\x00" + query
	}
	if st, ok := s.stmts.Load(key); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if prev, loaded := s.stmts.LoadOrStore(key, st); loaded {
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

// migrations run in order; user_version counts how many have run. Append
// only: a migration that shipped never changes.
var migrations = []string{`
CREATE TABLE items (
	seq           INTEGER PRIMARY KEY AUTOINCREMENT,
	id            TEXT    NOT NULL UNIQUE,
	kind          TEXT    NOT NULL,
	learning_kind TEXT    NOT NULL DEFAULT '',
	text          TEXT    NOT NULL,
	confidence    REAL,
	source        TEXT    NOT NULL,
	provenance    TEXT    NOT NULL,
	workspace     TEXT    NOT NULL DEFAULT '',
	folder        TEXT    NOT NULL DEFAULT '',
	file_path     TEXT    NOT NULL DEFAULT '',
	language      TEXT    NOT NULL DEFAULT '',
	repo          TEXT    NOT NULL DEFAULT '',
	commit_sha    TEXT    NOT NULL DEFAULT '',
	url           TEXT    NOT NULL DEFAULT '',
	thread_id     TEXT    NOT NULL DEFAULT '',
	agent_id      TEXT    NOT NULL DEFAULT '',
	tags          TEXT    NOT NULL DEFAULT '[]',
	observed_at   INTEGER NOT NULL,
	created_at    INTEGER NOT NULL
);
CREATE INDEX items_observed_at ON items(observed_at);
CREATE INDEX items_kind ON items(kind, seq);
CREATE INDEX items_workspace ON items(workspace, seq) WHERE workspace != '';
CREATE VIRTUAL TABLE items_fts USING fts5(
	text, content='items', content_rowid='seq', tokenize='porter unicode61 remove_diacritics 2'
);
-- Deleting a row removes its terms from the index itself, not just a marker.
INSERT INTO items_fts(items_fts, rank) VALUES ('secure-delete', 1);
CREATE TRIGGER items_ai AFTER INSERT ON items BEGIN
	INSERT INTO items_fts(rowid, text) VALUES (new.seq, new.text);
END;
CREATE TRIGGER items_ad AFTER DELETE ON items BEGIN
	INSERT INTO items_fts(items_fts, rowid, text) VALUES ('delete', old.seq, old.text);
END;
CREATE TRIGGER items_au AFTER UPDATE OF text ON items BEGIN
	INSERT INTO items_fts(items_fts, rowid, text) VALUES ('delete', old.seq, old.text);
	INSERT INTO items_fts(rowid, text) VALUES (new.seq, new.text);
END;
`, `
CREATE TABLE item_vectors (
	vid   INTEGER PRIMARY KEY AUTOINCREMENT,
	seq   INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
	model TEXT    NOT NULL,
	dim   INTEGER NOT NULL,
	vec   BLOB    NOT NULL,
	UNIQUE (seq, model)
);
CREATE INDEX item_vectors_model ON item_vectors(model, vid);
CREATE TABLE vector_deletions (
	id  INTEGER PRIMARY KEY AUTOINCREMENT,
	seq INTEGER NOT NULL
);
CREATE TRIGGER items_ad_vectors AFTER DELETE ON items BEGIN
	INSERT INTO vector_deletions (seq) VALUES (old.seq);
END;
`, `
ALTER TABLE items ADD COLUMN source_id TEXT NOT NULL DEFAULT '';
ALTER TABLE items ADD COLUMN source_ref TEXT NOT NULL DEFAULT '';
ALTER TABLE items ADD COLUMN token_count INTEGER NOT NULL DEFAULT 0;
CREATE INDEX items_source ON items(source_id, seq) WHERE source_id != '';
CREATE TABLE sources (
	source_id    TEXT PRIMARY KEY,
	source_kind  TEXT NOT NULL,
	display_name TEXT NOT NULL,
	content_hash TEXT NOT NULL,
	updated_ms   INTEGER NOT NULL
);
CREATE TABLE entities (
	seq       INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
	entity_id TEXT    NOT NULL,
	kind      TEXT    NOT NULL,
	surface   TEXT    NOT NULL,
	PRIMARY KEY (seq, entity_id)
) WITHOUT ROWID;
CREATE INDEX entities_entity ON entities(entity_id, seq);
`, `
-- Keyword search ranks in memory (built from items and the deletion log),
-- so the FTS5 copy of every text goes: writes get cheaper and a forgotten
-- text has one place less to linger in.
DROP TRIGGER items_ai;
DROP TRIGGER items_ad;
DROP TRIGGER items_au;
DROP TABLE items_fts;
`, `
-- A learning a client stored itself is of source 'client'; 'agent' is left
-- to sub-agents' learnings, whose provenance names the agent.
UPDATE items SET source = 'client'
WHERE source = 'agent' AND provenance NOT LIKE 'agent:%' AND provenance NOT LIKE '%/agent:%';
`, `
-- A source is named by its workspace and id together: the same file
-- ingested into two workspaces is two sources, and one never replaces or
-- reveals the other. A source stored before is of its items' workspace.
CREATE TABLE sources_by_workspace (
	workspace    TEXT NOT NULL DEFAULT '',
	source_id    TEXT NOT NULL,
	source_kind  TEXT NOT NULL,
	display_name TEXT NOT NULL,
	content_hash TEXT NOT NULL,
	updated_ms   INTEGER NOT NULL,
	PRIMARY KEY (workspace, source_id)
);
INSERT INTO sources_by_workspace
SELECT coalesce((SELECT i.workspace FROM items i WHERE i.source_id = s.source_id ORDER BY i.seq DESC LIMIT 1), ''),
	s.source_id, s.source_kind, s.display_name, s.content_hash, s.updated_ms
FROM sources s;
DROP TABLE sources;
ALTER TABLE sources_by_workspace RENAME TO sources;
`, `
-- A file that arrives in parts: the chunks the parts of the version being
-- stored (its content hash) have stored so far. Its last part removes the
-- source's other chunks and these rows. A source is named by its workspace
-- and id, as in sources.
CREATE TABLE source_parts (
	workspace    TEXT NOT NULL,
	source_id    TEXT NOT NULL,
	content_hash TEXT NOT NULL,
	item_id      TEXT NOT NULL,
	PRIMARY KEY (workspace, source_id, content_hash, item_id)
) WITHOUT ROWID;
`, `
-- A replicated store's name and how far it applied the stream of writes
-- (one row; applied_seq changes in the transaction of each event's effect).
CREATE TABLE replica (
	id          INTEGER PRIMARY KEY CHECK (id = 1),
	name        TEXT    NOT NULL DEFAULT '',
	applied_seq INTEGER NOT NULL DEFAULT 0
);
INSERT INTO replica (id) VALUES (1);
`, `
-- A source's items are found by its workspace and key (its id, or for
-- learnings whoever wrote them: sourceIDExpr), so that replacing or
-- forgetting a source costs what the source holds, not what memory holds.
-- The index on source_id alone could not be used: a query's
-- "source_id = ?" does not tell SQLite that it is not ''.
DROP INDEX items_source;
CREATE INDEX items_source_key ON items(workspace, coalesce(nullif(source_id, ''), provenance), source, observed_at);
`, `
-- tree.list_sources reads these counts instead of grouping every item:
-- per workspace, source key, kind and source id, how many items, the
-- newest one's observed_at and the first stored (lowest seq) of the items
-- that new, whose source names the listing. Triggers keep them exact
-- through every write, whichever process or replica makes it.
CREATE TABLE source_counts (
	workspace      TEXT    NOT NULL,
	source_key     TEXT    NOT NULL,
	source_kind    TEXT    NOT NULL,
	source_id      TEXT    NOT NULL,
	chunk_count    INTEGER NOT NULL,
	most_recent_ms INTEGER NOT NULL,
	newest_seq     INTEGER NOT NULL,
	PRIMARY KEY (workspace, source_key, source_kind, source_id)
) WITHOUT ROWID;
INSERT INTO source_counts
SELECT workspace, coalesce(nullif(source_id, ''), provenance), source, source_id, count(*), max(observed_at), 0
FROM items GROUP BY 1, 2, 3, 4;
UPDATE source_counts SET newest_seq = (SELECT min(i.seq) FROM items i WHERE i.workspace = source_counts.workspace
	AND coalesce(nullif(i.source_id, ''), i.provenance) = source_counts.source_key AND i.source = source_counts.source_kind
	AND i.source_id = source_counts.source_id AND i.observed_at = source_counts.most_recent_ms);
CREATE TRIGGER items_ai_sources AFTER INSERT ON items BEGIN
	INSERT INTO source_counts VALUES
		(new.workspace, coalesce(nullif(new.source_id, ''), new.provenance), new.source, new.source_id, 1, new.observed_at, new.seq)
	ON CONFLICT DO UPDATE SET chunk_count = chunk_count + 1, most_recent_ms = max(most_recent_ms, excluded.most_recent_ms),
		newest_seq = CASE WHEN excluded.most_recent_ms > most_recent_ms THEN excluded.newest_seq
			WHEN excluded.most_recent_ms = most_recent_ms THEN min(newest_seq, excluded.newest_seq) ELSE newest_seq END;
END;
-- Only when the item naming the newest goes are the newest of the rest
-- looked up (by items_source_key: its last entries, then the first of
-- those).
CREATE TRIGGER items_ad_sources AFTER DELETE ON items BEGIN
	UPDATE source_counts SET chunk_count = chunk_count - 1
	WHERE workspace = old.workspace AND source_key = coalesce(nullif(old.source_id, ''), old.provenance)
		AND source_kind = old.source AND source_id = old.source_id;
	DELETE FROM source_counts WHERE workspace = old.workspace AND source_key = coalesce(nullif(old.source_id, ''), old.provenance)
		AND source_kind = old.source AND source_id = old.source_id AND chunk_count <= 0;
	UPDATE source_counts SET
		most_recent_ms = (SELECT max(i.observed_at) FROM items i WHERE i.workspace = old.workspace
			AND coalesce(nullif(i.source_id, ''), i.provenance) = coalesce(nullif(old.source_id, ''), old.provenance)
			AND i.source = old.source AND i.source_id = old.source_id),
		newest_seq = (SELECT min(i.seq) FROM items i WHERE i.workspace = old.workspace
			AND coalesce(nullif(i.source_id, ''), i.provenance) = coalesce(nullif(old.source_id, ''), old.provenance)
			AND i.source = old.source AND i.source_id = old.source_id
			AND i.observed_at = (SELECT max(i.observed_at) FROM items i WHERE i.workspace = old.workspace
				AND coalesce(nullif(i.source_id, ''), i.provenance) = coalesce(nullif(old.source_id, ''), old.provenance)
				AND i.source = old.source AND i.source_id = old.source_id))
	WHERE workspace = old.workspace AND source_key = coalesce(nullif(old.source_id, ''), old.provenance)
		AND source_kind = old.source AND source_id = old.source_id AND newest_seq = old.seq;
END;
-- No write changes these columns of an item today; one that does (a
-- migration relabelling items) moves the item from one count to another,
-- as a delete and an insert would.
CREATE TRIGGER items_au_sources AFTER UPDATE OF workspace, source_id, provenance, source, observed_at ON items BEGIN
	UPDATE source_counts SET chunk_count = chunk_count - 1
	WHERE workspace = old.workspace AND source_key = coalesce(nullif(old.source_id, ''), old.provenance)
		AND source_kind = old.source AND source_id = old.source_id;
	DELETE FROM source_counts WHERE workspace = old.workspace AND source_key = coalesce(nullif(old.source_id, ''), old.provenance)
		AND source_kind = old.source AND source_id = old.source_id AND chunk_count <= 0;
	UPDATE source_counts SET
		most_recent_ms = (SELECT max(i.observed_at) FROM items i WHERE i.workspace = old.workspace
			AND coalesce(nullif(i.source_id, ''), i.provenance) = coalesce(nullif(old.source_id, ''), old.provenance)
			AND i.source = old.source AND i.source_id = old.source_id),
		newest_seq = (SELECT min(i.seq) FROM items i WHERE i.workspace = old.workspace
			AND coalesce(nullif(i.source_id, ''), i.provenance) = coalesce(nullif(old.source_id, ''), old.provenance)
			AND i.source = old.source AND i.source_id = old.source_id
			AND i.observed_at = (SELECT max(i.observed_at) FROM items i WHERE i.workspace = old.workspace
				AND coalesce(nullif(i.source_id, ''), i.provenance) = coalesce(nullif(old.source_id, ''), old.provenance)
				AND i.source = old.source AND i.source_id = old.source_id))
	WHERE workspace = old.workspace AND source_key = coalesce(nullif(old.source_id, ''), old.provenance)
		AND source_kind = old.source AND source_id = old.source_id AND newest_seq = old.seq;
	INSERT INTO source_counts VALUES
		(new.workspace, coalesce(nullif(new.source_id, ''), new.provenance), new.source, new.source_id, 1, new.observed_at, new.seq)
	ON CONFLICT DO UPDATE SET chunk_count = chunk_count + 1, most_recent_ms = max(most_recent_ms, excluded.most_recent_ms),
		newest_seq = CASE WHEN excluded.most_recent_ms > most_recent_ms THEN excluded.newest_seq
			WHEN excluded.most_recent_ms = most_recent_ms THEN min(newest_seq, excluded.newest_seq) ELSE newest_seq END;
END;
`, `
-- A learning that corrects another in place names it in its first tag
-- (replaces:<id>); reads find what is replaced by this index.
CREATE INDEX items_first_tag ON items(json_extract(tags, '$[0]'));
`}

// migrate runs inside one IMMEDIATE transaction, so two processes starting
// on a new file at the same moment migrate it once.
func (s *Store) migrate(ctx context.Context) error {
	return sqlitefile.Migrate(ctx, s.write, migrations)
}

// storeErr converts a storage failure to a contract error at the package
// edge: what was being done, and the engine's own words, which are the useful
// part of "disk I/O error" or "database disk image is malformed".
func (s *Store) storeErr(doing string, err error) error {
	var ce *contract.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ce):
		return ce
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return contract.Errorf(contract.CodeUnavailable, "memory ran out of time while %s", doing)
	case sqlitefile.IsBusy(err):
		return contract.Errorf(contract.CodeUnavailable,
			"memory is busy: another process held the write lock too long while %s; retry", doing)
	}
	s.health.failed(err)
	return contract.Errorf(contract.CodeEngine, "memory storage failed while %s: %v", doing, err)
}

// Checkpoint copies the WAL into the database file and truncates it, so
// the file's size is the data's size.
func (s *Store) Checkpoint() error {
	_, err := s.write.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}

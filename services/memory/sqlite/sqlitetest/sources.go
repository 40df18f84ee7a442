package sqlitetest

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// AssertSources fails tb unless the source counts of store's file are what
// counting its items gives, and store.Sources lists, for every workspace
// scope given and for no scope, what grouping the items gives: the rows,
// their order and their display names. Without a scope that is what
// tree.list_sources listed before it read counts.
func AssertSources(tb testing.TB, store *sqlite.Store, scopes ...[]string) {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+store.Path+"?mode=ro&_pragma=busy_timeout(30000)")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	kept := rowsOf(tb, db, `SELECT workspace, source_key, source_kind, source_id, chunk_count, most_recent_ms, newest_seq
		FROM source_counts ORDER BY 1, 2, 3, 4`)
	counted := rowsOf(tb, db, `SELECT workspace, coalesce(nullif(source_id, ''), provenance), source, source_id, count(*), max(observed_at),
		(SELECT min(f.seq) FROM items f WHERE f.workspace = g.workspace
			AND coalesce(nullif(f.source_id, ''), f.provenance) = coalesce(nullif(g.source_id, ''), g.provenance)
			AND f.source = g.source AND f.source_id = g.source_id AND f.observed_at = max(g.observed_at))
		FROM items g GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`)
	if !slices.Equal(kept, counted) {
		tb.Fatalf("source counts kept:\n\t%s\nwhat the items count:\n\t%s", strings.Join(kept, "\n\t"), strings.Join(counted, "\n\t"))
	}
	for _, scope := range append([][]string{nil}, scopes...) {
		list, err := store.Sources(context.Background(), scope)
		if err != nil {
			tb.Fatal(err)
		}
		got := make([]string, len(list))
		for i, s := range list {
			got[i] = summary(s)
		}
		if want := grouped(tb, db, scope, groupedQuery); !slices.Equal(got, want) {
			tb.Fatalf("sources of workspaces %q:\n\t%s\ngrouping the items:\n\t%s", scope, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
		}
	}
	if was, now := grouped(tb, db, nil, formerQuery), grouped(tb, db, nil, groupedQuery); !slices.Equal(was, now) {
		tb.Fatalf("the former listing:\n\t%s\ngrouping the items:\n\t%s", strings.Join(was, "\n\t"), strings.Join(now, "\n\t"))
	}
}

// formerQuery is how tree.list_sources grouped every item before it read
// counts. A source's display name came from the row max() picked, among
// equals the first the plan read: without a scope, the first stored.
const formerQuery = `SELECT coalesce(nullif(i.source_id, ''), i.provenance) AS sid, i.source, count(*), max(i.observed_at),
	coalesce((SELECT display_name FROM sources s WHERE s.source_id = i.source_id AND s.workspace = i.workspace), '')
	FROM items i WHERE 1=1%s GROUP BY sid, i.source ORDER BY max(i.observed_at) DESC, sid, i.source`

// groupedQuery groups the items as formerQuery does, naming each source
// by its newest item and, among equals, the first stored, whatever the
// scope.
const groupedQuery = `WITH v AS (SELECT coalesce(nullif(i.source_id, ''), i.provenance) AS sid, i.* FROM items i WHERE 1=1%s)
	SELECT g.sid, g.source, count(*), max(g.observed_at),
	(SELECT coalesce((SELECT display_name FROM sources s WHERE s.source_id = f.source_id AND s.workspace = f.workspace), '')
		FROM v f WHERE f.sid = g.sid AND f.source = g.source ORDER BY f.observed_at DESC, f.seq LIMIT 1)
	FROM v g GROUP BY g.sid, g.source ORDER BY max(g.observed_at) DESC, g.sid, g.source`

// grouped lists the sources of scope by query, a format with a place for
// the scope's condition.
func grouped(tb testing.TB, db *sql.DB, scope []string, query string) []string {
	tb.Helper()
	where, args := "", []any{}
	if scope != nil {
		where = " AND 0"
		if len(scope) > 0 {
			where = " AND i.workspace IN (" + strings.TrimSuffix(strings.Repeat("?,", len(scope)), ",") + ")"
		}
		for _, ws := range scope {
			args = append(args, ws)
		}
	}
	rows, err := db.Query(fmt.Sprintf(query, where), args...)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s memory.SourceSummary
		if err := rows.Scan(&s.SourceID, &s.SourceKind, &s.ChunkCount, &s.MostRecentMS, &s.DisplayName); err != nil {
			tb.Fatal(err)
		}
		if s.DisplayName == "" {
			s.DisplayName = s.SourceID
		}
		out = append(out, summary(s))
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

func summary(s memory.SourceSummary) string {
	return fmt.Sprintf("%s (%s, %q): %d chunks, newest %d", s.SourceID, s.SourceKind, s.DisplayName, s.ChunkCount, s.MostRecentMS)
}

// rowsOf reads every row of query as one line each.
func rowsOf(tb testing.TB, db *sql.DB, query string) []string {
	tb.Helper()
	rows, err := db.Query(query)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			tb.Fatal(err)
		}
		cells := make([]string, len(vals))
		for i, v := range vals {
			cells[i] = fmt.Sprintf("%v", v)
			if s, ok := v.(string); ok {
				cells[i] = fmt.Sprintf("%q", s)
			}
		}
		out = append(out, strings.Join(cells, " "))
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

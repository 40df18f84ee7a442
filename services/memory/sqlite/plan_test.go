package sqlite

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// scansItems matches a query plan's step that reads every item (alias i or
// the table's name), through the table or an index alike.
var scansItems = regexp.MustCompile(`^SCAN (items|i)\b`)

// readsItems matches any step that reads items.
var readsItems = regexp.MustCompile(`^(SCAN|SEARCH) (items|i)\b`)

// What an ingest writes and what listing sources reads is found by index,
// so their cost follows the source, not how much memory holds: replacing a
// file's chunks, the last part of a file sent in parts, dropping a
// forgotten source's record, browsing one source of a workspace (a
// replicated forget reads what is left of a source so), every statement
// the triggers on items run, and the listing, which reads the counts and
// no item at all.
func TestQueriesFindRowsByIndex(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "memory.db"))
	inAB, _ := workspaceIn("c.workspace", []string{"a", "b"})
	inBrowse, _ := workspaceSQL([]string{"a"})
	queries := map[string]string{
		"replacing a source":                 deleteReplaced,
		"which items are replaced":           replacedQuery(2),
		"the last part of a source":          deleteUnnoted,
		"a forgotten source's record":        deleteEmptySource,
		"browsing one source of a workspace": `SELECT ` + itemColumns + ` FROM items i WHERE 1=1 AND ` + sourceIDExpr + ` IN (?)` + inBrowse,
	}
	rows, err := s.read.Query(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'items'`)
	if err != nil {
		t.Fatal(err)
	}
	// A trigger's old and new values become literals: the plan of each
	// statement is the plan it runs with.
	refs := regexp.MustCompile(`\b(old|new)\.(\w+)`)
	for rows.Next() {
		var name, body string
		if err := rows.Scan(&name, &body); err != nil {
			t.Fatal(err)
		}
		body = body[strings.Index(body, "BEGIN")+len("BEGIN") : strings.LastIndex(body, "END")]
		for i, stmt := range strings.Split(body, ";") {
			if stmt = strings.TrimSpace(stmt); stmt != "" {
				queries[name+" statement "+string(rune('1'+i))] = refs.ReplaceAllString(stmt, "'$1_$2'")
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for what, q := range queries {
		for _, step := range plan(t, s, q) {
			if scansItems.MatchString(step) {
				t.Errorf("%s reads every item (%s):\n%s", what, step, q)
			}
		}
	}
	if steps := plan(t, s, replacedQuery(2)); len(steps) == 0 || !strings.Contains(steps[0], "items_first_tag") {
		t.Errorf("which items are replaced is not read by their first tag: %q", steps)
	}
	for _, q := range []string{sourcesQuery(""), sourcesQuery(inAB)} {
		for _, step := range plan(t, s, q) {
			if readsItems.MatchString(step) {
				t.Errorf("listing sources reads items (%s):\n%s", step, q)
			}
		}
	}
}

// plan is the steps of query's plan (EXPLAIN QUERY PLAN's details), its
// parameters NULL.
func plan(t *testing.T, s *Store, query string) []string {
	t.Helper()
	rows, err := s.read.Query(`EXPLAIN QUERY PLAN `+query, make([]any, strings.Count(query, "?"))...)
	if err != nil {
		t.Fatalf("planning %s: %v", query, err)
	}
	defer rows.Close()
	var steps []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return steps
}

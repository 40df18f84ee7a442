package sqlite

import (
	"context"
	"strings"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// firstTag is the expression items_first_tag indexes: SQLite uses an
// index on an expression only where a query spells it the same.
const firstTag = `json_extract(tags, '$[0]')`

// replacerOfItsOwn holds a replacing item to what memory.learn's replaces
// makes: a learning, of the workspace of the learning it names (read by the
// id the tag ends with, after its prefix's length + 1, the one argument).
// The + keeps SQLite from reading every learning by kind instead of the
// few items by their first tag.
const replacerOfItsOwn = ` AND +kind = 'learning' AND EXISTS (SELECT 1 FROM items AS o WHERE o.id = substr(json_extract(items.tags, '$[0]'), ?)` +
	` AND o.kind = 'learning' AND o.workspace = items.workspace)`

// Replaced maps each of ids that a learning stored later replaces to that
// learning's id, the newest where several do. Only a learning of the old
// one's workspace replaces it, as memory.learn's replaces makes one: the
// tag alone, which an import or a note's front matter may carry anywhere,
// neither hides an item nor names one across workspaces.
func (s *Store) Replaced(ctx context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = memory.ReplacesTag + id
	}
	rows, err := s.query(ctx, replacedQuery(len(ids)), append(args, len(memory.ReplacesTag)+1)...)
	if err != nil {
		return nil, s.storeErr("reading which items are replaced", err)
	}
	defer rows.Close()
	for rows.Next() {
		var tag, id string
		if err := rows.Scan(&tag, &id); err != nil {
			return nil, s.storeErr("reading which items are replaced", err)
		}
		out[strings.TrimPrefix(tag, memory.ReplacesTag)] = id
	}
	return out, s.storeErr("reading which items are replaced", rows.Err())
}

// replacedQuery reads the items replacing n items, found by their first tag.
func replacedQuery(n int) string {
	return `SELECT ` + firstTag + `, id FROM items WHERE ` + firstTag + ` IN (` + placeholders(n) + `)` + replacerOfItsOwn + ` ORDER BY seq`
}

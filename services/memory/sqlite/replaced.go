package sqlite

import (
	"context"
	"strings"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// firstTag is the expression items_first_tag indexes: SQLite uses an
// index on an expression only where a query spells it the same.
const firstTag = `json_extract(tags, '$[0]')`

// Replaced maps each of ids that a learning stored later replaces to that
// learning's id, the newest where several do.
func (s *Store) Replaced(ctx context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = memory.ReplacesTag + id
	}
	rows, err := s.query(ctx, `SELECT `+firstTag+`, id FROM items WHERE `+firstTag+` IN (`+placeholders(len(ids))+`) ORDER BY seq`, args...)
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

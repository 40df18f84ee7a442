package sqlite

import (
	"context"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// ListAfter returns up to limit items passing f with seq > after, oldest
// first: an export reads the store in pages of this, each one query on
// the primary key, so a million items cost what a thousand pages do and
// never more memory than one page.
func (s *Store) ListAfter(ctx context.Context, f *memory.Filter, after int64, limit int) ([]memory.Item, error) {
	where, args := filterSQL(f)
	rows, err := s.query(ctx, `SELECT `+itemColumns+` FROM items i WHERE i.seq > ?`+where+` ORDER BY i.seq LIMIT ?`,
		append(append([]any{after}, args...), limit)...)
	if err != nil {
		return nil, s.storeErr("exporting items", err)
	}
	items, err := scanItems(rows)
	return items, s.storeErr("exporting items", err)
}

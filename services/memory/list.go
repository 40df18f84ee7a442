package memory

import (
	"context"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// pager is the port of paged reads: list, export and forget by filter
// walk the store through it.
type pager interface {
	// List returns up to limit items passing f with seq < before (no bound
	// when 0), newest first.
	List(ctx context.Context, f *Filter, before int64, limit int) ([]Item, error)
	// ListAfter returns up to limit items passing f with seq > after,
	// oldest first (an export's pages).
	ListAfter(ctx context.Context, f *Filter, after int64, limit int) ([]Item, error)
}

// ListResult is one page of items, newest first (declared in
// pkg/contract, where memory.list's output schema is generated from it).
type ListResult = contract.ListResult

// List pages through the items cc may see, newest first. The cursor holds
// the last seq seen, so pages stay consistent while other writers add items.
func (s *Service) List(ctx context.Context, p ListParams, cc contract.CallContext) (*ListResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	fp := argsFingerprint(cursorKind("list", cc), p.Filter)
	c, err := decodeCursor(p.Cursor, fp)
	if err != nil {
		return nil, err
	}
	n := limit(p.Limit)
	items, err := s.pages.List(ctx, scoped(p.Filter, cc), c.Before, n+1)
	if err != nil {
		return nil, err
	}
	out := &ListResult{Items: make([]Hit, 0, min(len(items), n))}
	if len(items) > n {
		items = items[:n]
		out.NextCursor = cursor{Before: items[n-1].Seq, For: fp}.encode()
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	replaced, err := s.replacement(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		h := hitOf(it, nil)
		h.Meta.SupersededBy = replaced[it.ID]
		out.Items = append(out.Items, h)
	}
	return out, nil
}

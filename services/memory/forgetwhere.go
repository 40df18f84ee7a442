package memory

import (
	"context"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// forgetBatch is how many items one deletion takes: one transaction, and
// with replication one event, of a bounded size.
const forgetBatch = 500

// checkForget refuses arguments that name nothing, or ids beside a selection:
// one call forgets either the items named or the items selected.
func checkForget(p ForgetParams) error {
	selects := strings.TrimSpace(p.Source) != "" || strings.TrimSpace(p.Workspace) != ""
	switch {
	case len(p.IDs) > 0 && selects:
		return contract.Errorf(contract.CodeInvalidRequest,
			"memory.forget takes `ids`, or `source` and/or `workspace`, not both: forget the ids in one call and the rest in another").With("field", "ids")
	case len(p.IDs) == 0 && !selects:
		return contract.Errorf(contract.CodeInvalidRequest,
			"memory.forget needs `ids` (items by id), or `source` (an ingested file or folder) and/or `workspace`").With("field", "ids")
	}
	return nil
}

// forgetWhere forgets every item of p's source and/or workspace that cc
// may see, in batches; with DryRun it only counts them.
func (s *Service) forgetWhere(ctx context.Context, p ForgetParams, cc contract.CallContext) (*ForgetResult, error) {
	ids, err := s.selected(ctx, p, cc)
	if err != nil {
		return nil, err
	}
	n := len(ids)
	res := &ForgetResult{NotFound: []string{}, Matched: &n}
	if p.DryRun {
		return res, nil
	}
	for start := 0; start < len(ids); start += forgetBatch {
		batch := ids[start:min(start+forgetBatch, len(ids))]
		w, err := s.writes.Delete(ctx, batch, scopeOf(cc))
		if err != nil {
			return nil, err
		}
		res.Forgotten += len(batch) - len(w.Missing)
		res.Seq = max(res.Seq, w.Seq)
	}
	return res, nil
}

// selected are the ids of the items p's source and/or workspace hold, of
// those cc may see: a source is an item's source id (an ingested file's
// path, a thread) or a folder, which holds every source under it.
func (s *Service) selected(ctx context.Context, p ForgetParams, cc contract.CallContext) ([]string, error) {
	scope := scopeOf(cc)
	ws := strings.TrimSpace(p.Workspace)
	if ws != "" {
		if cc.Scoped() && !cc.MaySee(ws) {
			return []string{}, nil // not there for this caller
		}
		scope = []string{ws}
	}
	var sources []string
	if src := strings.TrimSpace(p.Source); src != "" {
		list, err := s.tree.Sources(ctx, scope)
		if err != nil {
			return nil, err
		}
		folder := strings.TrimSuffix(src, "/") + "/"
		for _, l := range list {
			if l.SourceID == src || strings.HasPrefix(l.SourceID, folder) {
				sources = append(sources, l.SourceID)
			}
		}
		if len(sources) == 0 {
			return []string{}, nil
		}
	}
	if sources == nil {
		return s.idsOf(ctx, &Filter{Workspaces: scope}, nil)
	}
	var ids []string
	for start := 0; start < len(sources); start += forgetBatch {
		var err error
		batch := sources[start:min(start+forgetBatch, len(sources))]
		if ids, err = s.idsOf(ctx, &Filter{SourceIDs: batch, Workspaces: scope}, ids); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// idsOf appends to ids those of every item f passes, page by page in seq
// order: each page starts where the last ended, so a workspace of a
// hundred thousand items costs what it holds, not its square.
func (s *Service) idsOf(ctx context.Context, f *Filter, ids []string) ([]string, error) {
	for after := int64(0); ; {
		items, err := s.pages.ListAfter(ctx, f, after, forgetBatch)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			ids = append(ids, it.ID)
		}
		if len(items) < forgetBatch {
			return ids, nil
		}
		after = items[len(items)-1].Seq
	}
}

// countIDs is a dry run's answer for ids: how many of them cc may see.
func (s *Service) countIDs(ctx context.Context, ids []string, cc contract.CallContext) (*ForgetResult, error) {
	res := &ForgetResult{NotFound: []string{}}
	for _, id := range ids {
		if _, err := s.tree.Item(ctx, id, scopeOf(cc)); err != nil {
			if contract.ErrorCode(err) != contract.CodeNotFound {
				return nil, err
			}
			res.NotFound = append(res.NotFound, id)
		}
	}
	n := len(ids) - len(res.NotFound)
	res.Matched = &n
	return res, nil
}

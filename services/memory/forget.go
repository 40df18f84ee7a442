package memory

import (
	"context"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// ForgetResult is declared in pkg/contract, where its schema is generated.
type ForgetResult = contract.ForgetResult

// Forget removes items for good. An item cc may not see is not there for
// it: reported not found, and left alone.
func (s *Service) Forget(ctx context.Context, p ForgetParams, cc contract.CallContext) (*ForgetResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if err := checkForget(p); err != nil {
		return nil, err
	}
	if len(p.IDs) == 0 {
		return s.forgetWhere(ctx, p, cc)
	}
	if p.DryRun {
		return s.countIDs(ctx, dedupe(p.IDs), cc)
	}
	ids := dedupe(p.IDs)
	w, err := s.writes.Delete(ctx, ids, scopeOf(cc))
	if err != nil {
		return nil, err
	}
	// The index drops their vectors at its next sync, from the store's
	// deletion log.
	missing := w.Missing
	if missing == nil {
		missing = []string{}
	}
	return &ForgetResult{Forgotten: len(ids) - len(missing), NotFound: missing, Seq: w.Seq}, nil
}

func dedupe(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

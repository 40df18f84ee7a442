package memory

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// A caller whose CallContext names workspaces (a token limited to them)
// reads and changes only items of those workspaces. The service enforces
// it, not the gateway, so a client that reaches the bus directly is held to
// it too; and it enforces it inside every read, before ranking, counting or
// paging, so that nothing a scoped caller gets back (hits, scores, totals,
// counts, errors) depends on the items it may not see.

// scopeStore is the port scoped reads narrow the store's items by.
type scopeStore interface {
	// Matching returns the seqs (<= asOf) of the items passing f, ascending.
	Matching(ctx context.Context, f *Filter, asOf int64) ([]int64, error)
}

// scopeOf is the workspaces cc is limited to, nil when it is not limited:
// the store's methods read nil as "every workspace".
func scopeOf(cc contract.CallContext) []string {
	if !cc.Scoped() {
		return nil
	}
	return cc.Workspaces
}

// scoped returns f limited to what cc may see: f itself, untouched, for a
// caller that is not limited, so that such reads cost what they always did.
func scoped(f *Filter, cc contract.CallContext) *Filter {
	if !cc.Scoped() {
		return f
	}
	var out Filter
	if f != nil {
		out = *f
	}
	out.Workspaces = cc.Workspaces
	return &out
}

// onlyScope reports whether f restricts by nothing but the caller's scope.
func onlyScope(f *Filter) bool {
	return f.Meta == (Meta{}) && len(f.Kinds) == 0 && len(f.Sources) == 0 && len(f.LearningKinds) == 0 && len(f.SourceIDs) == 0 && len(f.TagsAny) == 0 &&
		f.ObservedAfter == nil && f.ObservedBefore == nil
}

// cursorKind is what a cursor is tied to besides the arguments: a page made
// for one scope is refused under another rather than read through it.
func cursorKind(kind string, cc contract.CallContext) string {
	if !cc.Scoped() {
		return kind
	}
	return kind + "\x00" + strings.Join(cc.Workspaces, "\x00")
}

// view is what one read may consider.
type view struct {
	// allowed are the seqs passing the read's filter and scope, ascending;
	// nil when neither restricts.
	allowed []int64
	// universe are the seqs the caller may see at all, ascending; nil when
	// it may see everything. Rankings weigh words by it, so that a scoped
	// caller's scores are those of a memory holding only its items.
	universe []int64
}

// viewOf reads which items with seq <= asOf (asOf <= m.Items) a read
// filtered by f (already scoped) may consider.
func (s *Service) viewOf(ctx context.Context, f *Filter, m Marks, asOf int64) (view, error) {
	var v view
	if f == nil {
		return v, nil
	}
	var err error
	if f.Workspaces != nil {
		if v.universe, err = s.scopes.seqs(ctx, s.scope, f.Workspaces, m, asOf); err != nil {
			return v, err
		}
		if onlyScope(f) {
			v.allowed = v.universe
			return v, nil
		}
	}
	if v.allowed, err = s.scope.Matching(ctx, f, asOf); err != nil {
		return v, err
	}
	if v.allowed == nil {
		v.allowed = []int64{} // nothing passes: not "no filter"
	}
	return v, nil
}

// scopeCache keeps the seqs of the items of each scope seen lately, as of
// the store's marks. Which items a scope holds changes only when items are
// stored or deleted (an item never changes workspace), and reading them
// from the store is otherwise most of what a scoped read costs.
type scopeCache struct {
	mu    sync.Mutex
	items int64 // the marks the seqs are for
	dels  int64
	byKey map[string][]int64 // by scope
}

// maxCachedScopes bounds the cache: callers are tokens, which are few.
const maxCachedScopes = 64

// seqs returns the seqs (<= asOf, ascending) of the items of workspaces, as
// of m. The slice is shared: callers must not modify it.
func (c *scopeCache) seqs(ctx context.Context, store scopeStore, workspaces []string, m Marks, asOf int64) ([]int64, error) {
	key := strings.Join(workspaces, "\x00")
	seqs, ok := c.get(key, m)
	if !ok {
		var err error
		if seqs, err = store.Matching(ctx, &Filter{Workspaces: workspaces}, m.Items); err != nil {
			return nil, err
		}
		if seqs == nil {
			seqs = []int64{}
		}
		c.put(key, m, seqs)
	}
	n, _ := slices.BinarySearch(seqs, asOf+1)
	return seqs[:n:n], nil
}

// get returns the cached seqs of key as of m, first dropping what was
// cached for other marks (or a full cache). The map is made here whenever it
// is missing, so the zero cache, whose marks equal an empty memory's, works.
func (c *scopeCache) get(key string, m Marks) ([]int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil || c.items != m.Items || c.dels != m.Deletions || len(c.byKey) >= maxCachedScopes {
		c.items, c.dels, c.byKey = m.Items, m.Deletions, make(map[string][]int64)
	}
	seqs, ok := c.byKey[key]
	return seqs, ok
}

// put keeps seqs for key when the marks they were read for are still the
// cache's: a read that raced a write must not fill the cache with its past.
func (c *scopeCache) put(key string, m Marks, seqs []int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey != nil && c.items == m.Items && c.dels == m.Deletions {
		c.byKey[key] = seqs
	}
}

// writeWorkspace decides the workspace of an item cc writes, given the one
// its arguments name (field says where, for the error): a limited caller
// may write only into its workspaces, and one limited to exactly one
// writes there when it names none.
func writeWorkspace(cc contract.CallContext, given, field string) (string, error) {
	if !cc.Scoped() {
		return given, nil
	}
	allowed := strings.Join(cc.Workspaces, ", ")
	switch {
	case given != "":
		if !cc.MaySee(given) {
			return "", contract.Errorf(contract.CodeDenied,
				"argument `%s`: %q is not a workspace this caller may write to; it may write to: %s", field, given, allowed).With("field", field)
		}
		return given, nil
	case len(cc.Workspaces) == 1:
		return cc.Workspaces[0], nil
	}
	return "", contract.Errorf(contract.CodeInvalidRequest,
		"argument `%s` is required: this caller may write to several workspaces (%s); name one of them", field, allowed).With("field", field)
}

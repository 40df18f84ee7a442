package memory

import (
	"context"
	"sync"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/retrieval"
)

// replacements is the port that tells which learnings a correction has
// replaced.
type replacements interface {
	// Replaced maps each of ids that a learning stored later replaces
	// (its first tag is ReplacesTag + the id) to that learning's id.
	Replaced(ctx context.Context, ids []string) (map[string]string, error)
}

// A learning is corrected in place by learning its new text with replaces
// naming it. The old one is kept, with its provenance, and is superseded:
// listed with superseded_by, and no longer found by fetch or recall, which
// find the new one instead. The link is the new item's first tag,
// ReplacesTag + the old id, so it travels wherever items do (export,
// import, the replicated write stream) and the store finds it by an index.

// ReplacesTag begins the first tag of a learning that replaces another.
const ReplacesTag = "replaces:"

// correct stores text as the correction of the learning p.Replaces, in its
// workspace, of its kind unless p names one.
func (s *Service) correct(ctx context.Context, p LearnParams, text string, cc contract.CallContext) (*LearnResult, error) {
	old, err := s.tree.Item(ctx, p.Replaces, scopeOf(cc))
	if contract.ErrorCode(err) == contract.CodeNotFound {
		return nil, contract.Errorf(contract.CodeNotFound,
			"argument `replaces`: no learning %q in memory that this caller may see; ids come from memory.list, memory.fetch or memory.learn", p.Replaces).With("field", "replaces")
	}
	if err != nil {
		return nil, err
	}
	if old.Kind != "learning" {
		return nil, contract.Errorf(contract.CodeInvalidRequest,
			"argument `replaces`: %q is a %s, and only a learning is corrected in place; forget it (memory.forget) and learn the new text", p.Replaces, old.Kind).With("field", "replaces")
	}
	if p.Workspace != "" && p.Workspace != old.Meta.Workspace {
		return nil, contract.Errorf(contract.CodeInvalidRequest,
			"argument `workspace`: a correction stays in the workspace of the learning it replaces (%q); leave workspace out", old.Meta.Workspace).With("field", "workspace")
	}
	if _, err := writeWorkspace(cc, old.Meta.Workspace, "replaces"); err != nil {
		return nil, err
	}
	kind := p.Kind
	if kind == "" {
		kind = old.LearningKind
	}
	it := learning(text, kind, old.Meta.Workspace, p.Confidence, cc)
	it.Tags = []string{ReplacesTag + old.ID}
	res, err := s.Remember(ctx, []Item{it})
	if err != nil {
		return nil, err
	}
	res[0].Replaces = old.ID
	return &res[0], nil
}

// replacement reads which of items are superseded: their ids, mapped to
// the learning replacing each. Every read ranks its hits through it, so
// what the store answered is remembered until the store changes.
func (s *Service) replacement(ctx context.Context, ids []string) (map[string]string, error) {
	if len(ids) == 0 {
		return map[string]string{}, nil
	}
	m, err := s.store.Marks(ctx)
	if err != nil {
		return s.replacements.Replaced(ctx, ids)
	}
	return s.replacementAt(ctx, m, ids)
}

// replacementAt is replacement with the store's marks already read: a
// read that ranked as of m looks its hits up under the same marks
// instead of reading them again.
func (s *Service) replacementAt(ctx context.Context, m Marks, ids []string) (map[string]string, error) {
	if len(ids) == 0 {
		return map[string]string{}, nil
	}
	out, missing := s.replaced.lookup(m, ids)
	if len(missing) == 0 {
		return out, nil
	}
	read, err := s.replacements.Replaced(ctx, missing)
	if err != nil {
		return nil, err
	}
	for id, by := range read {
		out[id] = by
	}
	s.replaced.keep(m, missing, read)
	return out, nil
}

// replacedMemo remembers, per item id, the learning replacing it ("" for
// none) as of the store's marks. Only a learning stored, or one deleted,
// changes the answer, and either moves the marks (Items or Deletions),
// which empties the memo: an answer read while a write landed is kept
// under the marks read before it, which no later read sees again.
type replacedMemo struct {
	mu    sync.Mutex
	items int64 // the marks the answers hold for
	dels  int64
	by    map[string]string
}

// replacedMemoMax bounds the memo; past it, it starts again.
const replacedMemoMax = 1 << 16

// lookup returns the replacements of ids it knows as of m, and the ids it
// does not know.
func (c *replacedMemo) lookup(m Marks, ids []string) (map[string]string, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]string{}
	if c.by == nil || c.items != m.Items || c.dels != m.Deletions {
		return out, ids
	}
	var missing []string
	for _, id := range ids {
		by, ok := c.by[id]
		switch {
		case !ok:
			missing = append(missing, id)
		case by != "":
			out[id] = by
		}
	}
	return out, missing
}

// keep records what the store answered for ids as of m.
func (c *replacedMemo) keep(m Marks, ids []string, read map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil || c.items != m.Items || c.dels != m.Deletions || len(c.by)+len(ids) > replacedMemoMax {
		c.by, c.items, c.dels = make(map[string]string, len(ids)), m.Items, m.Deletions
	}
	for _, id := range ids {
		c.by[id] = read[id]
	}
}

// current drops from ranked the items a learning replaces: a read finds
// what memory now holds, not what it was told and then told otherwise.
func (s *Service) current(ctx context.Context, ranked []retrieval.Candidate) ([]retrieval.Candidate, error) {
	return s.currentAt(ctx, nil, ranked)
}

// currentAt is current with the store's marks the ranking was made as of,
// so that they are not read again; nil reads them.
func (s *Service) currentAt(ctx context.Context, m *Marks, ranked []retrieval.Candidate) ([]retrieval.Candidate, error) {
	if len(ranked) == 0 {
		return ranked, nil
	}
	items, err := s.itemsOf(ctx, ranked)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(items))
	for _, it := range items {
		if it.Kind == "learning" {
			ids = append(ids, it.ID)
		}
	}
	var replaced map[string]string
	if m == nil {
		replaced, err = s.replacement(ctx, ids)
	} else {
		replaced, err = s.replacementAt(ctx, *m, ids)
	}
	if err != nil || len(replaced) == 0 {
		return ranked, err
	}
	out := ranked[:0:0]
	for _, c := range ranked {
		if _, gone := replaced[items[c.Seq].ID]; !gone {
			out = append(out, c)
		}
	}
	return out, nil
}

package memory

import (
	"context"
	"math"
	"sort"
	"strings"

	"unicode/utf8"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/entities"
	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
)

// The memory tree is the older, read-only view of memory: chunks grouped
// by source, and the entities they mention. Chunks are items.

// treeStore is the port of the tree views, and of reading one item by id
// (correct and forget check an id through it).
type treeStore interface {
	// Item reads one item of workspaces (every workspace when nil) by id
	// (NOT_FOUND when absent there).
	Item(ctx context.Context, id string, workspaces []string) (Item, error)
	// Browse lists items matching q, newest observed first, and how many match.
	Browse(ctx context.Context, q BrowseQuery) ([]Item, int, error)
	// TopEntities counts the items of workspaces (every workspace when nil)
	// per entity, most mentioned first.
	TopEntities(ctx context.Context, kind string, k int, workspaces []string) ([]EntityCount, error)
	// Sources lists every source of workspaces (every workspace when nil)
	// with its item count and latest item there.
	Sources(ctx context.Context, workspaces []string) ([]SourceSummary, error)
}

// The tree's rows are declared in pkg/contract, where the tools' output
// schemas are generated from them.
type (
	ChunkRow     = contract.ChunkRow
	ChunkList    = contract.ChunkList
	ScoredChunks = contract.ScoredChunks
)

// previewChars bounds content_preview.
const previewChars = 500

func chunkRow(it Item) ChunkRow {
	source := it.SourceID
	if source == "" {
		source = it.Provenance
	}
	preview := it.Text
	if utf8.RuneCountInString(preview) > previewChars {
		preview = string([]rune(preview)[:previewChars])
	}
	tags := it.Tags
	if tags == nil {
		tags = []string{}
	}
	return ChunkRow{ID: it.ID, SourceKind: it.Source, SourceID: source, SourceRef: it.SourceRef, Owner: it.Provenance,
		TimestampMS: it.ObservedAt.UnixMilli(), TokenCount: it.TokenCount, ContentPreview: preview, Tags: tags}
}

func treeK(k, max int) int {
	switch {
	case k <= 0:
		return 10
	case k > max:
		return max
	}
	return k
}

// TreeSearch is keyword search over the chunks cc may see, best first.
func (s *Service) TreeSearch(ctx context.Context, q TreeQuery, cc contract.CallContext) (*ChunkList, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	out := &ChunkList{Chunks: []ChunkRow{}}
	if len(lexicon.Terms(q.Query)) == 0 {
		return out, nil
	}
	m, err := s.store.Marks(ctx)
	if err != nil {
		return nil, err
	}
	v, err := s.viewOf(ctx, scoped(nil, cc), m, m.Items)
	if err != nil {
		return nil, err
	}
	ranked, matching, err := s.search.Words(ctx, m, q.Query, treeK(q.K, 50), m.Items, v.universe)
	if err != nil {
		return nil, err
	}
	out.Total = len(matching)
	seqs := make([]int64, len(ranked))
	for i, r := range ranked {
		seqs[i] = r.Seq
	}
	items, err := s.items(ctx, seqs)
	if err != nil {
		return nil, err
	}
	for _, seq := range seqs {
		if it, ok := items[seq]; ok {
			out.Chunks = append(out.Chunks, chunkRow(it))
		}
	}
	return out, nil
}

// TreeRecall is semantic recall over the chunks cc may see: the hybrid
// ranking, with scores.
func (s *Service) TreeRecall(ctx context.Context, q TreeQuery, cc contract.CallContext) (*ScoredChunks, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	m, err := s.store.Marks(ctx)
	if err != nil {
		return nil, err
	}
	k := treeK(q.K, 50)
	v, err := s.viewOf(ctx, scoped(nil, cc), m, m.Items)
	if err != nil {
		return nil, err
	}
	ranked, _, err := s.rank(ctx, m, ModeHybrid, q.Query, v, m.Items, k, k)
	if err != nil {
		return nil, err
	}
	items, err := s.itemsOf(ctx, ranked)
	if err != nil {
		return nil, err
	}
	out := &ScoredChunks{Chunks: []ChunkRow{}, Scores: []float64{}}
	for _, f := range ranked {
		if it, ok := items[f.Seq]; ok {
			out.Chunks = append(out.Chunks, chunkRow(it))
			out.Scores = append(out.Scores, f.Score)
		}
	}
	return out, nil
}

// FullChunk is a chunk with its whole content, the item it is and the
// entities it mentions.
type FullChunk = contract.FullChunk

// ReadChunk returns one chunk cc may see in full; any other is not found.
func (s *Service) ReadChunk(ctx context.Context, p ReadChunkParams, cc contract.CallContext) (*FullChunk, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	it, err := s.tree.Item(ctx, strings.TrimSpace(p.ChunkID), scopeOf(cc))
	if err != nil {
		return nil, err
	}
	// Entities are kept for counting, not per item; they are a function of
	// the text, as when it was stored.
	ents := entities.Extract(it.Text, it.Meta.Language)
	if ents == nil {
		ents = []Entity{}
	}
	h := hitOf(it, nil)
	replaced, err := s.replacement(ctx, []string{it.ID})
	if err != nil {
		return nil, err
	}
	h.Meta.SupersededBy = replaced[it.ID]
	return &FullChunk{Chunk: chunkRow(it), Content: it.Text, Item: h, Entities: ents}, nil
}

// Browse pages through the chunks cc may see, newest first, by source,
// entity, time and words.
func (s *Service) Browse(ctx context.Context, p BrowseParams, cc contract.CallContext) (*ChunkList, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	q := BrowseQuery{SourceKinds: p.SourceKinds, SourceIDs: p.SourceIDs, EntityIDs: lowerAll(p.EntityIDs), Workspaces: scopeOf(cc),
		SinceMS: p.SinceMS, UntilMS: p.UntilMS, K: treeK(p.K, 100), Offset: max(p.Offset, 0)}
	if strings.TrimSpace(p.Query) != "" {
		if len(lexicon.Terms(p.Query)) == 0 {
			return &ChunkList{Chunks: []ChunkRow{}}, nil
		}
		m, err := s.store.Marks(ctx)
		if err != nil {
			return nil, err
		}
		if q.Seqs, err = s.search.Matching(ctx, m, p.Query, math.MaxInt64); err != nil {
			return nil, err
		}
		if len(q.Seqs) == 0 {
			return &ChunkList{Chunks: []ChunkRow{}}, nil
		}
	}
	items, total, err := s.tree.Browse(ctx, q)
	if err != nil {
		return nil, err
	}
	out := &ChunkList{Chunks: make([]ChunkRow, 0, len(items)), Total: total}
	for _, it := range items {
		out.Chunks = append(out.Chunks, chunkRow(it))
	}
	return out, nil
}

// EntityList is the most mentioned entities.
type EntityList = contract.EntityList

// TopEntities lists the entities most mentioned by the items cc may see,
// optionally of one kind.
func (s *Service) TopEntities(ctx context.Context, p TopEntitiesParams, cc contract.CallContext) (*EntityList, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	list, err := s.tree.TopEntities(ctx, strings.ToLower(p.Kind), treeK(p.K, 100), scopeOf(cc))
	if err != nil {
		return nil, err
	}
	return &EntityList{Entities: list}, nil
}

// SourceRow is a source as tree.list_sources shows it, and SourceList
// lists them, most recently active first.
type (
	SourceRow  = contract.SourceRow
	SourceList = contract.SourceList
)

// ListSources lists every source of the items cc may see. With a user
// email hint, sources that mention that address are marked and listed first.
func (s *Service) ListSources(ctx context.Context, p ListSourcesParams, cc contract.CallContext) (*SourceList, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	list, err := s.tree.Sources(ctx, scopeOf(cc))
	if err != nil {
		return nil, err
	}
	mentions := map[string]bool{}
	if hint := strings.ToLower(strings.TrimSpace(p.UserEmailHint)); hint != "" {
		items, _, err := s.tree.Browse(ctx, BrowseQuery{EntityIDs: []string{entities.Email + ":" + hint}, Workspaces: scopeOf(cc), K: 1000})
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			mentions[chunkRow(it).SourceID] = true
		}
	}
	out := &SourceList{Sources: make([]SourceRow, 0, len(list))}
	for _, src := range list {
		out.Sources = append(out.Sources, SourceRow{SourceSummary: src, MentionsUser: mentions[src.SourceID]})
	}
	if len(mentions) > 0 {
		sort.SliceStable(out.Sources, func(i, j int) bool { return out.Sources[i].MentionsUser && !out.Sources[j].MentionsUser })
	}
	return out, nil
}

func lowerAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(strings.TrimSpace(s))
	}
	return out
}

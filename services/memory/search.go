package memory

import (
	"context"
	"slices"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/retrieval"
)

// Fetch modes. Hybrid fuses the keyword and vector rankings and reranks
// the best (services/memory/retrieval).
const (
	ModeKeyword = retrieval.ModeKeyword
	ModeVector  = retrieval.ModeVector
	ModeHybrid  = retrieval.ModeHybrid
)

// Modes this engine serves; the first is the default.
var Modes = []string{ModeHybrid, ModeKeyword, ModeVector}

// maxDepth is how deep each ranking is read, whatever page is asked for:
// fused scores depend on the depth, so a fixed depth keeps pages
// consistent with each other. memory.fetch pages through the best maxDepth
// results; memory.list walks everything.
const maxDepth = 200

// FetchResult is one page of hits, best first (declared in pkg/contract,
// where memory.fetch's output schema is generated from it).
type FetchResult = contract.FetchResult

// Fetch finds items matching a query, in the requested mode, among those
// cc may see.
func (s *Service) Fetch(ctx context.Context, p FetchParams, cc contract.CallContext) (*FetchResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	mode := p.Mode
	if mode == "" {
		mode = Modes[0]
	}
	if !contains(Modes, mode) {
		return nil, contract.Errorf(contract.CodeUnsupported,
			"memory.fetch mode %q is not supported by this memory engine (it supports: %s); leave mode out to use the default",
			mode, strings.Join(Modes, ", "))
	}
	query := strings.TrimSpace(p.Query)
	// The fingerprint is made when a cursor is read or made, not for a
	// page with none, such as a fetch that finds nothing.
	fp := ""
	if p.Cursor != "" {
		fp = fetchFingerprint(query, mode, p, cc)
	}
	c, err := decodeCursor(p.Cursor, fp)
	if err != nil {
		return nil, err
	}
	m, err := s.store.Marks(ctx)
	if err != nil {
		return nil, err
	}
	if c.AsOf == 0 {
		c.AsOf = m.Items
	}
	n := limit(p.Limit)
	out := &FetchResult{Hits: []Hit{}, Mode: mode}
	v, err := s.viewOf(ctx, scoped(p.Filter, cc), m, c.AsOf)
	if err != nil {
		return nil, err
	}
	// One past the page tells whether another page follows.
	ranked, warning, err := s.rank(ctx, m, mode, query, v, c.AsOf, maxDepth, c.Offset+n+1)
	if err != nil {
		return nil, err
	}
	if warning != "" {
		out.Warnings = append(out.Warnings, warning)
	}
	ranked = aboveFloor(ranked, mode, p.MinScore, s.recallMinCosine()*vecFloorShare)
	if c.Offset >= len(ranked) {
		return out, nil
	}
	page := ranked[c.Offset:]
	if len(page) > n {
		page = page[:n]
		if c.Offset+n < maxDepth {
			if fp == "" {
				fp = fetchFingerprint(query, mode, p, cc)
			}
			out.NextCursor = cursor{AsOf: c.AsOf, Offset: c.Offset + n, For: fp}.encode()
		}
	}
	if out.Hits, err = s.pageHits(ctx, page, query, mode, p); err != nil {
		return nil, err
	}
	return out, nil
}

// pageHits reads the items of a page of fetch's ranking, as hits.
func (s *Service) pageHits(ctx context.Context, page []retrieval.Candidate, query, mode string, p FetchParams) ([]Hit, error) {
	items, err := s.itemsOf(ctx, page)
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(page))
	for _, f := range page {
		it, ok := items[f.Seq]
		if !ok {
			continue // forgotten between ranking and reading
		}
		score := f.Score
		h := hitOf(it, &score)
		if p.Snippets {
			h.Snippet = snippet(query, it)
		}
		if p.Explain {
			h.Explain = explain(mode, s.search.Profile(), f)
		}
		hits = append(hits, h)
	}
	return hits, nil
}

// fetchFingerprint ties a fetch's cursors to the arguments that made them.
func fetchFingerprint(query, mode string, p FetchParams, cc contract.CallContext) string {
	return argsFingerprint(cursorKind("fetch", cc), struct {
		Q, M string
		F    *Filter
		S    *float64 `json:",omitempty"`
	}{query, mode, p.Filter, p.MinScore})
}

// vecFloorShare is the share of recall's cosine a hit must reach when
// no hit holds a word of the query: as high as the check on WordNet's
// definitions (TestEvalGlosses, which names each definition by a word it
// does not hold) allows without a loss; a third lost it 0.150 to 0.143.
const vecFloorShare = 0.25

// aboveFloor cuts ranked, best first with falling scores, at the first
// hit below the floor: min when given, else contract.DefaultMinScore in
// hybrid mode, whose score is relevance; none in the others. Under that
// default, a query no hit holds a word of, typos forgiven ("xyzzy
// plugh"), keeps only the hits its meaning is near (minCosine): the
// rerank gives its best candidate the fused score's share whatever it
// holds, which would list the nearest of unrelated notes as matches.
func aboveFloor(ranked []retrieval.Candidate, mode string, min *float64, minCosine float64) []retrieval.Candidate {
	floor := 0.0
	switch {
	case min != nil:
		floor = *min
	case mode == ModeHybrid:
		floor = contract.DefaultMinScore
		if !slices.ContainsFunc(ranked, func(f retrieval.Candidate) bool { return f.Keyword > 0 || f.Coverage > 0 }) {
			ranked = slices.DeleteFunc(ranked, func(f retrieval.Candidate) bool { return !f.InVector || f.Vector < minCosine })
		}
	}
	for i, f := range ranked {
		if f.Score < floor {
			return ranked[:i]
		}
	}
	return ranked
}

// itemsOf reads the items of list.
func (s *Service) itemsOf(ctx context.Context, list []retrieval.Candidate) (_ map[int64]Item, err error) {
	ctx, done := s.phase(ctx, "memory read items")
	defer func() { done(err) }()
	seqs := make([]int64, len(list))
	for i, f := range list {
		seqs[i] = f.Seq
	}
	return s.items(ctx, seqs)
}

// rank ranks the candidates for query among the items of v with seq <=
// asOf, each leg read to depth, with the indexes caught up to m, and
// returns the best min(need, depth) of them, best first, and a warning
// when the vector leg could not run (retrieval.Engine.Rank).
func (s *Service) rank(ctx context.Context, m Marks, mode, query string, v view, asOf int64, depth, need int) (_ []retrieval.Candidate, _ string, err error) {
	ctx, done := s.phase(ctx, "memory rank "+mode)
	defer func() { done(err) }()
	ranked, warning, err := s.search.Rank(ctx, retrieval.Query{Text: query, Mode: mode, Marks: m, AsOf: asOf,
		Allowed: v.allowed, Universe: v.universe, Depth: depth, Need: need})
	if err != nil {
		return nil, "", err
	}
	ranked, err = s.currentAt(ctx, &m, ranked)
	return ranked, warning, err
}

// explain is where a candidate's score came from: the sum of value ×
// weight over the features listed. Keyword and vector modes score by
// their leg alone. In hybrid mode a reranked hit's score is its profile's
// features (retrieval.Profile), weighed; a hit below the reranked ones
// keeps its fused order under them.
func explain(mode string, p retrieval.Profile, f retrieval.Candidate) *Explanation {
	one := func(name, phase string, v float64) *Explanation {
		return &Explanation{Profile: mode, Features: []FeatureValue{{Name: name, Phase: phase, Value: v, Weight: 1}}}
	}
	switch {
	case mode == ModeKeyword:
		return one("bm25", "first", f.Keyword)
	case mode == ModeVector:
		return one("cosine", "first", f.Vector)
	case !f.Reranked:
		return one("fused_order", "global", f.Score)
	}
	out := &Explanation{Profile: mode}
	for _, v := range []struct {
		name  string
		value float64
	}{
		{retrieval.FeatureFused, f.Fused},
		{retrieval.FeatureCoverage, f.InContext},
		{retrieval.FeatureCrossEncoder, f.CrossEncoder},
		{retrieval.FeatureLearning, f.Learning},
		{retrieval.FeatureCorrection, f.Correction},
		{retrieval.FeatureCorrectionNow, f.CorrectionNow},
	} {
		if v.value != 0 {
			out.Features = append(out.Features, FeatureValue{Name: v.name, Phase: "second", Value: v.value, Weight: p.Weight(v.name)})
		}
	}
	return out
}

package memory

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/keywordindex"
	"github.com/openhuman-go/openhuman-go/services/memory/topk"
)

// Fetch modes. Hybrid fuses the keyword and vector rankings (fusion.go).
const (
	ModeKeyword = "keyword"
	ModeVector  = "vector"
	ModeHybrid  = "hybrid"
)

// Modes this engine serves; the first is the default.
var Modes = []string{ModeHybrid, ModeKeyword, ModeVector}

// maxDepth is how deep each ranking is read, whatever page is asked for:
// fused scores depend on the depth, so a fixed depth keeps pages
// consistent with each other. memory.fetch pages through the best maxDepth
// results; memory.list walks everything.
const maxDepth = 200

// FetchParams are memory.fetch's arguments.
type FetchParams struct {
	Query  string  `json:"query"`
	Mode   string  `json:"mode,omitempty"`
	Filter *Filter `json:"filter,omitempty"`
	Limit  int     `json:"limit,omitempty"`
	Cursor string  `json:"cursor,omitempty"`
}

// FetchResult is one page of hits, best first.
type FetchResult struct {
	Hits       []Hit  `json:"hits"`
	Mode       string `json:"mode"`
	NextCursor string `json:"next_cursor,omitempty"`
	// Warnings say when the results are less than asked for, and why.
	Warnings []string `json:"warnings,omitempty"`
}

// fused is one candidate of a ranking, with what each leg said of it.
type fused struct {
	seq     int64
	score   float64
	keyword float64 // BM25; 0 when the keyword leg did not find it
	vector  float64 // cosine; 0 when the vector leg did not find it
	inVec   bool
	// coverage is the share of the question's word weight the item holds
	// (fusion.go's coverages), set on the candidates the rerank weighed.
	coverage float64
}

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
	fp := argsFingerprint(cursorKind("fetch", cc), struct {
		Q, M string
		F    *Filter
	}{query, mode, p.Filter})
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
	if c.Offset >= len(ranked) {
		return out, nil
	}
	page := ranked[c.Offset:]
	if len(page) > n {
		page = page[:n]
		if c.Offset+n < maxDepth {
			out.NextCursor = cursor{AsOf: c.AsOf, Offset: c.Offset + n, For: fp}.encode()
		}
	}
	items, err := s.itemsOf(ctx, page)
	if err != nil {
		return nil, err
	}
	out.Hits = make([]Hit, 0, len(page))
	for _, f := range page {
		it, ok := items[f.seq]
		if !ok {
			continue // forgotten between ranking and reading
		}
		score := f.score
		out.Hits = append(out.Hits, hitOf(it, &score))
	}
	return out, nil
}

// itemsOf reads the items of list.
func (s *Service) itemsOf(ctx context.Context, list []fused) (map[int64]Item, error) {
	seqs := make([]int64, len(list))
	for i, f := range list {
		seqs[i] = f.seq
	}
	return s.items(ctx, seqs)
}

// rank ranks the candidates for query among the items of v with seq <=
// asOf, each leg read to depth, with the indexes caught up to m, and returns the
// best min(need, depth) of them, best first. A vector leg that cannot run (the embedder is
// down, or nothing is embedded yet) leaves hybrid with the keyword leg and
// a warning that says so; vector mode fails instead.
func (s *Service) rank(ctx context.Context, m Marks, mode, query string, v view, asOf int64, depth, need int) ([]fused, string, error) {
	allowed := v.allowed
	var kw []Ranked
	var terms []keywordindex.Term
	// The keyword index is caught up once per search; the keyword leg and
	// the rerank read the same.
	var idx keywordIndex
	if mode != ModeVector {
		var err error
		if idx, err = s.syncKeywords(ctx, m); err != nil {
			return nil, "", err
		}
		// Hybrid looks for the query's words and their WordNet relatives;
		// keyword mode for its words only.
		if terms = keywordTerms(query, mode == ModeHybrid && !s.exactKeywords); len(terms) > 0 {
			kw = idx.SearchTerms(terms, depth, asOf, allowed, v.universe)
		}
	}
	var vec []Ranked
	warning := ""
	if mode != ModeKeyword {
		var err error
		vec, err = s.vectorLeg(ctx, m, query, allowed, asOf, depth)
		if err != nil {
			if mode == ModeVector {
				return nil, "", err
			}
			warning = "vector leg skipped, results are keyword only: " + contract.ErrorMessage(err)
		}
	}
	sc := fusePool.Get().(*fuseScratch)
	defer fusePool.Put(sc)
	clear(sc.at)
	out, at := sc.out[:0], sc.at // at: seq → index in out
	get := func(seq int64) *fused {
		i, ok := at[seq]
		if !ok {
			i = len(out)
			at[seq] = i
			out = append(out, fused{seq: seq})
		}
		return &out[i]
	}
	legs := []leg{{hits: kw, weight: 1}, {hits: vec, weight: s.vectorWeight(), vector: true}}
	fuseLegs(legs, get)
	for i := range out {
		switch mode {
		case ModeKeyword:
			out[i].score = out[i].keyword
		case ModeVector:
			out[i].score = out[i].vector
		}
	}
	// Ties go to the newest item: its seq is higher. Seqs are unique, so
	// the order is total and pages never overlap; only the first need of
	// the best depth are put in order.
	sc.out = out
	order := sc.order[:0]
	for _, x := range out {
		order = append(order, Ranked{Seq: x.seq, Score: x.score})
	}
	sc.order = order
	if mode != ModeHybrid {
		order = topk.Select(order, min(need, depth))
	} else {
		// The rerank reads the best candidates whatever page is asked
		// for, so that pages agree with each other, and the vector leg's
		// best wherever fusion left them.
		order = topk.Select(order, min(depth, max(need, rerankDepth)))
		for _, r := range vec[:min(rerankVectorExtra, len(vec))] {
			if !slices.ContainsFunc(order, func(o Ranked) bool { return o.Seq == r.Seq }) {
				order = append(order, Ranked{Seq: r.Seq, Score: out[at[r.Seq]].score})
			}
		}
	}
	best := make([]fused, len(order))
	for i, r := range order {
		best[i] = out[at[r.Seq]]
	}
	if mode == ModeHybrid {
		var err error
		if best, err = s.rerank(idx, m, v, query, terms, best, vec); err != nil {
			return nil, "", err
		}
	}
	return best[:min(need, depth, len(best))], warning, nil
}

// fuseScratch is rank's working space, reused across searches.
type fuseScratch struct {
	out   []fused
	at    map[int64]int
	order []Ranked
}

var fusePool = sync.Pool{New: func() any { return &fuseScratch{at: map[int64]int{}} }}

// vectorLeg ranks by cosine similarity to the query's embedding. With a
// filter (allowed not nil: the seqs passing it) the search is exact over
// those.
func (s *Service) vectorLeg(ctx context.Context, m Marks, query string, allowed []int64, asOf int64, depth int) ([]Ranked, error) {
	idx, err := s.syncIndex(ctx, m)
	if err != nil {
		return nil, err
	}
	if idx == nil || idx.Len() == 0 {
		return nil, contract.Errorf(contract.CodeUnavailable, "no item has a vector of model %s yet; they are being computed", s.embedder.Model())
	}
	qv, err := s.embedder.Embed(ctx, []string{query})
	if err != nil {
		return nil, err
	}
	hits := idx.Search(qv[0], depth+16, allowed)
	out := hits[:0]
	for _, h := range hits {
		if h.Seq <= asOf && h.Score > 0 {
			out = append(out, h)
		}
	}
	if len(out) > depth {
		out = out[:depth]
	}
	return out, nil
}

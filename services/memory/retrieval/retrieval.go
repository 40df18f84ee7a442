// Package retrieval ranks memory's items for a query: one entry point,
// Engine.Rank, takes the query and returns the items' seqs, best first.
// Behind it, one file per stage: the keyword leg (keyword.go: BM25 over
// an in-memory index, the query's words and their WordNet relatives,
// synonyms.go), the vector leg (vector.go: cosine over an in-memory index
// of the active model's vectors), fusion of the legs (fusion.go) and the
// rerank by the question's word weight (rerank.go). Both indexes follow
// the store (Source) and are caught up once per call. It reads the store
// through Source alone and writes nothing; which items a read may
// consider (its filter and scope) the caller decides.
package retrieval

import (
	"context"
	"sync"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/keywordindex"
	"github.com/openhuman-go/openhuman-go/services/memory/topk"
	"github.com/openhuman-go/openhuman-go/services/memory/wordnet"
)

// Ranking modes. Hybrid fuses the keyword and vector rankings and reranks
// the best.
const (
	ModeKeyword = "keyword"
	ModeVector  = "vector"
	ModeHybrid  = "hybrid"
)

// Ranked is an item's position in a ranking, with its score.
type Ranked = topk.Ranked

// Marks are how far the store has come: its newest item's seq, newest
// vector's id and newest deletion. The indexes catch up to them.
type Marks struct {
	Items     int64
	Vectors   int64
	Deletions int64
}

// Source is what retrieval reads of the store: what changed since marks
// it passes back. Both return the new marks.
type Source interface {
	// ItemChanges calls add for each item stored after addMark (ascending)
	// and remove for each item deleted after delMark.
	ItemChanges(ctx context.Context, addMark, delMark int64,
		add func(ItemChange), remove func(seq int64)) (newAdd, newDel int64, err error)
	// VectorChanges calls add for each vector of model stored after
	// addMark, and remove for each item deleted after delMark.
	VectorChanges(ctx context.Context, model string, addMark, delMark int64,
		add func(seq int64, v []float32), remove func(seq int64)) (newAdd, newDel int64, err error)
}

// ItemChange is what the keyword index reads of an item stored.
type ItemChange struct {
	Seq          int64
	Text         string
	LearningKind string
	// Kind is the item's kind ("conversation" for a turn), ThreadID the
	// thread it is a turn of, ObservedAt when it was said or seen (Unix
	// milliseconds): a turn is found with its thread and its time.
	Kind, ThreadID string
	ObservedAt     int64
}

// Embedder embeds the query for the vector leg, in the vector space of the
// store's vectors of Model.
type Embedder interface {
	Model() string
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Options configure an Engine; the zero value works.
type Options struct {
	// ExactKeywords makes hybrid's keyword leg look for the query's words
	// only, not their WordNet relatives too.
	ExactKeywords bool
	// Removed, when set, is told of each item an index saw deleted (the
	// caller's caches drop it).
	Removed func(seq int64)
	// Reranker, with Texts to read the items it scores, is a
	// cross-encoder the rerank reads its candidates with (rerank.go's
	// crossEncode); nil ranks without one.
	Reranker interface {
		Rerank(ctx context.Context, query string, passages []string) ([]float64, error)
	}
	Texts func(ctx context.Context, seqs []int64) (map[int64]string, error)
	// Profile, when set, is the profile to rank with instead of
	// DefaultProfile: an evaluation's ablation.
	Profile *Profile
}

// Engine ranks items of one store.
type Engine struct {
	src      Source
	embedder Embedder
	opts     Options
	profile  Profile
	keywords keywordState
	vectors  vectorState
}

// New ranks the items src holds, embedding queries with emb.
func New(src Source, emb Embedder, opts *Options) *Engine {
	// The WordNet table (the keyword leg's synonyms) takes a tenth of a
	// second to read; reading it now, beside whatever the caller does
	// next, keeps it off the first search's path.
	go wordnet.Load()
	e := &Engine{src: src, embedder: emb, profile: DefaultProfile()}
	if opts != nil {
		e.opts = *opts
	}
	if e.opts.Profile != nil {
		e.profile = *e.opts.Profile
	}
	if e.opts.ExactKeywords {
		e.profile, _ = e.profile.Without(SwitchRelatives)
	}
	return e
}

// Query is one ranking to make.
type Query struct {
	Text string
	Mode string // ModeHybrid, ModeKeyword or ModeVector
	// Marks are the store's, read by the caller; the indexes catch up to
	// them. Only items with seq <= AsOf are ranked.
	Marks Marks
	AsOf  int64
	// Allowed are the only seqs that may be ranked, ascending; nil when
	// nothing restricts. Universe are the seqs the caller may see at all,
	// nil for every one: words are weighed by how rare they are there.
	Allowed, Universe []int64
	// Depth is how deep each leg is read; Need how many are returned at
	// most.
	Depth, Need int
}

// Candidate is a ranked item, with what each stage said of it.
type Candidate struct {
	Seq   int64
	Score float64
	// Keyword is its BM25 score, Vector its cosine (InVector: the vector
	// leg found it); 0 when a leg did not find it.
	Keyword, Vector float64
	InVector        bool
	// Coverage is the share of the question's word weight the item holds,
	// set on the candidates the rerank weighed.
	Coverage float64
	// InContext is Coverage with what the turns before a conversation's
	// turn hold counted for less, as the rerank ranks by it.
	InContext float64
	// Fused is the fused score over the best candidate's, set on the
	// candidates the rerank weighed (Reranked): their score is
	// rerankFused × Fused + InContext, and what the rules added.
	Fused    float64
	Reranked bool
	// CrossEncoder is the cross-encoder's relevance, squashed into
	// [0, 1], on the candidates it read; 0 without one.
	CrossEncoder float64
	// Learning is InContext for the user's own items, 0 for a document's
	// chunks (FeatureLearning), on the candidates the rerank weighed.
	Learning float64
	// Correction is a correction's score before it was lifted (at most
	// 1: mostly its coverage), 0 for any other candidate; CorrectionNow
	// the same where the question asks what holds now. The profile weighs
	// both (FeatureCorrection, FeatureCorrectionNow).
	Correction, CorrectionNow float64
}

// Rank ranks the items for q and returns the best min(Need, Depth) of
// them, best first. A vector leg that cannot run (the embedder is down,
// or nothing is embedded yet) leaves hybrid with the keyword leg and a
// warning that says so; vector mode fails instead.
func (e *Engine) Rank(ctx context.Context, q Query) ([]Candidate, string, error) {
	var kw []Ranked
	var terms []keywordindex.Term
	// The keyword index is caught up once per call; the keyword leg and
	// the rerank read the same.
	var idx *keywordindex.Index
	if q.Mode != ModeVector {
		var err error
		if idx, err = e.syncKeywords(ctx, q.Marks); err != nil {
			return nil, "", err
		}
		kw, terms = e.keywordLeg(idx, q)
	}
	var vec []Ranked
	warning := ""
	if q.Mode != ModeKeyword {
		var err error
		if vec, err = e.vectorLeg(ctx, q); err != nil {
			if q.Mode == ModeVector {
				return nil, "", err
			}
			warning = "vector leg skipped, results are keyword only: " + contract.ErrorMessage(err)
		}
	}
	best := e.fuse(q, kw, vec)
	if q.Mode == ModeHybrid {
		best = e.rerank(ctx, idx, q, terms, best)
	}
	return best[:min(q.Need, q.Depth, len(best))], warning, nil
}

// fuse fuses the legs' rankings (fusion.go) and returns the candidates
// the mode puts first: the best Need for a single leg's mode; for hybrid,
// those the rerank reads whatever page is asked for, so that pages agree
// with each other, and the vector leg's best wherever fusion left them.
func (e *Engine) fuse(q Query, kw, vec []Ranked) []Candidate {
	sc := fusePool.Get().(*fuseScratch)
	defer fusePool.Put(sc)
	at := &sc.at // seq → index in out
	at.reset(len(kw) + len(vec))
	out := sc.out[:0]
	get := func(seq int64) *Candidate {
		i, ok := at.get(seq)
		if !ok {
			i = len(out)
			at.put(seq, i)
			out = append(out, Candidate{Seq: seq})
		}
		return &out[i]
	}
	fuseLegs([]leg{{hits: kw, weight: 1}, {hits: vec, weight: e.vectorWeight(), vector: true}}, get)
	for i := range out {
		switch q.Mode {
		case ModeKeyword:
			out[i].Score = out[i].Keyword
		case ModeVector:
			out[i].Score = out[i].Vector
		}
	}
	// Ties go to the newest item: its seq is higher. Seqs are unique, so
	// the order is total and pages never overlap; only the first need of
	// the best depth are put in order.
	sc.out = out
	order := sc.order[:0]
	for _, x := range out {
		order = append(order, Ranked{Seq: x.Seq, Score: x.Score})
	}
	sc.order = order
	if q.Mode != ModeHybrid {
		order = topk.Select(order, min(q.Need, q.Depth))
	} else {
		order = topk.Select(order, min(q.Depth, max(q.Need, e.profile.Depth)))
	}
	best := make([]Candidate, len(order))
	for i, r := range order {
		j, _ := at.get(r.Seq)
		best[i] = out[j]
	}
	return best
}

// fuseScratch is fuse's working space, reused across calls.
type fuseScratch struct {
	out   []Candidate
	at    seqTable
	order []Ranked
}

var fusePool = sync.Pool{New: func() any { return new(fuseScratch) }}

// Warm builds both indexes now, caught up to m, so that the first search
// does not wait for them (they take seconds at a million items).
func (e *Engine) Warm(ctx context.Context, m Marks) error {
	wordnet.Load()
	if _, err := e.syncKeywords(ctx, m); err != nil {
		return err
	}
	_, err := e.syncVectors(ctx, m)
	return err
}

// Indexed reports how many items the keyword and vector indexes hold, -1
// for one not built yet.
func (e *Engine) Indexed() (keywords, vectors int) {
	keywords, vectors = -1, -1
	e.keywords.mu.Lock()
	if e.keywords.index != nil {
		keywords = e.keywords.index.Len()
	}
	e.keywords.mu.Unlock()
	e.vectors.mu.Lock()
	if e.vectors.index != nil {
		vectors = e.vectors.index.Len()
	}
	e.vectors.mu.Unlock()
	return keywords, vectors
}

func (e *Engine) removed(seq int64) {
	if e.opts.Removed != nil {
		e.opts.Removed(seq)
	}
}

// Profile is the profile the engine ranks with.
func (e *Engine) Profile() Profile { return e.profile }

// SetProfile makes the engine rank with p: an evaluation's ablation.
func (e *Engine) SetProfile(p Profile) { e.profile = p }

package retrieval

import (
	"context"
	"sync"

	"github.com/openhuman-go/openhuman-go/services/memory/keywordindex"
	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
)

// keywordState is the keyword index, the seqs of the items read from
// documents (the rest are the user's own: learned or said) and of those
// that are corrections (learned as such, or telling of a change:
// tellsOfChange), and how far it has read the store. The index is built from the store, the
// truth, and follows its changes before every search, so that writes by
// other processes on the same file are seen too.
type keywordState struct {
	mu               sync.Mutex
	index            *keywordindex.Index
	documents        map[int64]bool
	corrections      map[int64]bool
	turns            turnState
	addMark, delMark int64
}

// kindDocument is the kind of an item read from a document.
const kindDocument = "document"

// learningCorrection is the learning kind of a note that corrects an
// earlier one.
const learningCorrection = "correction"

// syncKeywords brings the keyword index up to date with the store as of m
// and returns it. The first call reads every item.
func (e *Engine) syncKeywords(ctx context.Context, m Marks) (*keywordindex.Index, error) {
	st := &e.keywords
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.index == nil {
		st.index = keywordindex.New()
		st.documents, st.corrections = map[int64]bool{}, map[int64]bool{}
	}
	if m.Items <= st.addMark && m.Deletions <= st.delMark {
		return st.index, nil
	}
	add := func(c ItemChange) {
		text, spoken := indexText(c, e.profile)
		st.index.Add(c.Seq, text, spoken...)
		if c.Kind == kindDocument {
			st.documents[c.Seq] = true
		}
		if c.LearningKind == learningCorrection || c.Kind != kindDocument && e.profile.On(SwitchChangeCues) && tellsOfChange(c.Text) {
			st.corrections[c.Seq] = true
		}
		st.turns.add(c)
	}
	remove := func(seq int64) {
		st.index.Remove(seq)
		delete(st.documents, seq)
		delete(st.corrections, seq)
		st.turns.remove(seq)
		e.removed(seq)
	}
	a, d, err := e.src.ItemChanges(ctx, st.addMark, st.delMark, add, remove)
	if err != nil {
		return nil, err
	}
	st.addMark, st.delMark = a, d
	return st.index, nil
}

// isCorrection reports whether the item seq is a correction, as far as
// the last syncKeywords read the store.
func (e *Engine) isCorrection(seq int64) bool {
	st := &e.keywords
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.corrections[seq]
}

// isDocument reports whether the item seq was read from a document, as
// far as the last syncKeywords read the store.
func (e *Engine) isDocument(seq int64) bool {
	st := &e.keywords
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.documents[seq]
}

// keywordLeg ranks by BM25 over idx: hybrid looks for the query's words
// and their WordNet relatives, keyword mode for its words only. terms
// are what it looked for.
func (e *Engine) keywordLeg(idx *keywordindex.Index, q Query) (hits []Ranked, terms []keywordindex.Term) {
	expand := q.Mode == ModeHybrid && e.profile.On(SwitchRelatives)
	terms = keywordTerms(q.Text, expand, e.profile.On(SwitchKinds))
	if len(terms) == 0 {
		return nil, nil
	}
	return idx.SearchTerms(terms, q.Depth, q.AsOf, q.Allowed, q.Universe), terms
}

// Matching returns the seqs (<= asOf) of the items holding any of the
// query's words, ascending, with the keyword index caught up to m; nil
// when the query has no word to look for.
func (e *Engine) Matching(ctx context.Context, m Marks, query string, asOf int64) ([]int64, error) {
	keys := textkeys.Keys(lexicon.Terms(query))
	if len(keys) == 0 {
		return nil, nil
	}
	idx, err := e.syncKeywords(ctx, m)
	if err != nil {
		return nil, err
	}
	return idx.Matching(append(keys, spokenOf(keys)...), asOf), nil
}

// Words ranks the items (<= asOf) holding the query's words by BM25 alone,
// the best k, within universe when it is not nil (weighed as if memory
// held only those); matching are all the items holding any of them there.
func (e *Engine) Words(ctx context.Context, m Marks, query string, k int, asOf int64, universe []int64) (ranked []Ranked, matching []int64, err error) {
	keys := textkeys.Keys(lexicon.Terms(query))
	if len(keys) == 0 {
		return nil, nil, nil
	}
	idx, err := e.syncKeywords(ctx, m)
	if err != nil {
		return nil, nil, err
	}
	matching = idx.Matching(append(keys, spokenOf(keys)...), asOf)
	if universe == nil {
		return idx.SearchTerms(plainTerms(keys), k, asOf, nil, nil), matching, nil
	}
	return idx.SearchTerms(plainTerms(keys), k, asOf, nil, universe), intersectSorted(matching, universe), nil
}

// Plain ranks the items (<= asOf) holding any of words, taken as given
// (stopwords too: for what lexicon.Terms leaves out), by BM25 alone, the
// best k, among allowed and universe as Query has them.
func (e *Engine) Plain(ctx context.Context, m Marks, words []string, k int, asOf int64, allowed, universe []int64) ([]Ranked, error) {
	keys := textkeys.Keys(words)
	if len(keys) == 0 {
		return nil, nil
	}
	idx, err := e.syncKeywords(ctx, m)
	if err != nil {
		return nil, err
	}
	terms := make([]keywordindex.Term, len(keys))
	for i, key := range keys {
		terms[i] = keywordindex.Term{Key: key}
	}
	return idx.SearchTerms(terms, k, asOf, allowed, universe), nil
}

// intersectSorted returns the values of a that are also in b; both are
// ascending.
func intersectSorted(a, b []int64) []int64 {
	out := make([]int64, 0, min(len(a), len(b)))
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

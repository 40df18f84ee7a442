package memory

import (
	"context"
	"sync"

	"github.com/openhuman-go/openhuman-go/services/memory/keywordindex"
)

// keywordIndex is what the service asks of its keyword search: to follow
// the store's items, and to rank, list and count them by the keys textkeys
// makes of a query's terms. The index is rebuilt from the store, the truth,
// and follows its changes before every search, so that writes by other
// processes on the same file are seen too.
type keywordIndex interface {
	Add(seq int64, text string)
	Remove(seq int64)
	Search(keys []string, k int, asOf int64, allowed []int64) []Ranked
	SearchWithin(keys []string, k int, asOf int64, allowed, universe []int64) []Ranked
	SearchTerms(terms []keywordindex.Term, k int, asOf int64, allowed, universe []int64) []Ranked
	Matching(keys []string, asOf int64) []int64
	DocFreq(key string) int
	DocFreqWithin(key string, universe []int64) int
	Held(seqs []int64, keys []string, forgive uint64, like func(key, other string) bool, masks []uint64) []uint64
}

var _ keywordIndex = (*keywordindex.Index)(nil)

// keywordState is the keyword index, the seqs of the items learned as
// corrections, and how far both have read the store. The rerank lifts a
// correction over the fact it corrects; knowing here which items are
// corrections spares it reading the items themselves.
type keywordState struct {
	mu               sync.Mutex
	index            keywordIndex
	corrections      map[int64]bool
	addMark, delMark int64
}

// syncKeywords brings the keyword index up to date with the store as of m
// and returns it. The first call reads every item.
func (s *Service) syncKeywords(ctx context.Context, m Marks) (keywordIndex, error) {
	st := s.keywords
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.index == nil {
		st.index = keywordindex.New()
		st.corrections = map[int64]bool{}
	}
	if m.Items <= st.addMark && m.Deletions <= st.delMark {
		return st.index, nil
	}
	add := func(seq int64, text, learningKind string) {
		st.index.Add(seq, text)
		if learningKind == learningCorrection {
			st.corrections[seq] = true
		}
	}
	remove := func(seq int64) {
		st.index.Remove(seq)
		delete(st.corrections, seq)
		s.cache.drop(seq)
	}
	a, d, err := s.store.ItemChanges(ctx, st.addMark, st.delMark, add, remove)
	if err != nil {
		return nil, err
	}
	st.addMark, st.delMark = a, d
	return st.index, nil
}

// learningCorrection is the learning kind of a note that corrects an
// earlier one.
const learningCorrection = "correction"

// isCorrection reports whether the item seq was learned as a correction,
// as far as the last syncKeywords read the store.
func (s *Service) isCorrection(seq int64) bool {
	st := s.keywords
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.corrections[seq]
}

// keywordsNow reads the store's marks and returns the keyword index caught
// up to them, for a search that needs nothing else.
func (s *Service) keywordsNow(ctx context.Context) (keywordIndex, Marks, error) {
	m, err := s.store.Marks(ctx)
	if err != nil {
		return nil, m, err
	}
	idx, err := s.syncKeywords(ctx, m)
	return idx, m, err
}

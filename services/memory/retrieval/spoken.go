package retrieval

import (
	"slices"

	"github.com/openhuman-go/openhuman-go/services/memory/keywordindex"
	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
)

// A name a note speaks to ("Thanks, Gina!") is not what the note is about,
// so the keyword index does not hold it as the name's key (indexText), but
// under a key of its own: spokenPrefix, which textkeys never makes, and
// the name's key. A search for the name looks for that key too, at
// spokenWeight: a note said to Gina is found by "Gina", below every note
// that speaks of her. The rerank does not count it as holding the name,
// and recall does not answer from it.
const (
	spokenPrefix = "\x00"
	spokenWeight = 0.2
)

// spokenKeys are the index keys of the names a note speaks to.
func spokenKeys(names []string) []string {
	if len(names) == 0 {
		return nil
	}
	return spokenOf(textkeys.Keys(names))
}

// spokenOf are keys (textkeys') as names spoken to.
func spokenOf(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = spokenPrefix + k
	}
	return out
}

// withSpoken is terms with each term's key spoken to as an alternative;
// terms are left as they are.
func withSpoken(terms []keywordindex.Term) []keywordindex.Term {
	out := make([]keywordindex.Term, len(terms))
	for i, t := range terms {
		out[i] = keywordindex.Term{Key: t.Key, Alts: append(slices.Clip(t.Alts), keywordindex.Alt{Key: spokenPrefix + t.Key, Weight: spokenWeight})}
	}
	return out
}

// plainTerms are terms of keys, each with its key spoken to.
func plainTerms(keys []string) []keywordindex.Term {
	terms := make([]keywordindex.Term, len(keys))
	for i, k := range keys {
		terms[i] = keywordindex.Term{Key: k, Alts: []keywordindex.Alt{{Key: spokenPrefix + k, Weight: spokenWeight}}}
	}
	return terms
}

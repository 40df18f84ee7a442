package retrieval

import (
	"github.com/openhuman-go/openhuman-go/services/memory/keywordindex"
	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
)

// A name a note speaks to ("Thanks, Gina!") is not what the note is about,
// so the keyword index does not hold it as the name's key (indexText), but
// under a key of its own: spokenPrefix, which textkeys never makes, and
// the name's key. No search looks for it: the rerank does not count it as
// holding the name, and recall does not answer from it.
const spokenPrefix = "\x00"

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

// plainTerms are terms of keys.
func plainTerms(keys []string) []keywordindex.Term {
	terms := make([]keywordindex.Term, len(keys))
	for i, k := range keys {
		terms[i] = keywordindex.Term{Key: k}
	}
	return terms
}

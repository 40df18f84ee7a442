package memory

import (
	"github.com/openhuman-go/openhuman-go/services/memory/keywordindex"
	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
	"github.com/openhuman-go/openhuman-go/services/memory/wordnet"
)

// expansion weighs the words WordNet relates to a query word when the
// keyword leg looks for them too (hybrid mode): a synonym counts for at
// most half the word itself, and never more than the word would (see
// keywordindex.SearchTerms), so an exact match is never drowned. Words
// related by less than minWeight (a sense the two rarely share) and more
// than perTerm of them are left out.
var expansion = struct {
	synonym, derived, broader float64
	minWeight                 float64
	perTerm                   int
}{synonym: 0.5, derived: 0.3, broader: 0.2, minWeight: 0.1, perTerm: 6}

// keywordTerms returns the keyword leg's terms for a query: each word's
// index key, and with expand, the keys of the words WordNet relates to it
// as weighted alternatives.
func keywordTerms(query string, expand bool) []keywordindex.Term {
	var tok textkeys.Tokenizer
	var out []keywordindex.Term
	seen := map[string]bool{}
	words := Terms(query)
	for _, w := range words {
		tok.Each(w, func(k []byte) {
			if !seen[string(k)] {
				seen[string(k)] = true
				out = append(out, keywordindex.Term{Key: string(k)})
			}
		})
	}
	if !expand || len(out) != len(words) {
		// A word that is not one key (a symbol, a compound) has no
		// synonyms worth the trouble.
		return out
	}
	for i, w := range words {
		alts := out[i].Alts
		for _, r := range wordnet.RelatedTo(w, expansion.minWeight) {
			if len(alts) == expansion.perTerm {
				break
			}
			weight := r.Weight * map[wordnet.Relation]float64{
				wordnet.Synonym: expansion.synonym, wordnet.Derived: expansion.derived, wordnet.Broader: expansion.broader,
			}[r.Relation]
			if weight <= 0 || stopwords[r.Word] {
				continue
			}
			key := keyOf(&tok, r.Word)
			if key == "" || seen[key] {
				continue // the query's own word, or another's
			}
			seen[key] = true
			alts = append(alts, keywordindex.Alt{Key: key, Weight: weight})
		}
		out[i].Alts = alts
	}
	return out
}

// keyOf is a one-word text's index key, "" if it is not one key.
func keyOf(tok *textkeys.Tokenizer, word string) string {
	key, n := "", 0
	tok.Each(word, func(k []byte) {
		key = string(k)
		n++
	})
	if n != 1 {
		return ""
	}
	return key
}

package retrieval

import (
	"slices"
	"sync"

	"github.com/openhuman-go/openhuman-go/services/memory/keywordindex"
	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
	"github.com/openhuman-go/openhuman-go/services/memory/wordnet"
)

// expansion weighs the words WordNet relates to a query word when the
// keyword leg looks for them too (hybrid mode): a word counts for a share
// of the query word itself, and never more than the word would (see
// keywordindex.SearchTerms), so an exact match is never drowned. Words
// related by less than minWeight (a sense the two rarely share) and more
// than perTerm of them are left out. Broader words (hypernyms) are not
// looked for: on the evaluation's design half they changed nothing. The
// word's irregular forms ("ran" for "run", wordnet.Forms) come first, at
// form: the same word, but "saw" is a tool too and "took" is light. Set on
// the design halves: at 0.7, LoCoMo recall@5 0.601 -> 0.606 (learnings)
// and 0.670 -> 0.677 (conversation), the WordNet evaluation's figures
// kept; at 0.9 it lost "which vet do we take the dog to now". The words
// lexicon.Kinds gives for a kind ("dog" for "pet") count as synonyms.
var expansion = struct {
	form, synonym, derived float64
	minWeight              float64
	perTerm                int
}{form: 0.7, synonym: 0.7, derived: 0.6, minWeight: 0.1, perTerm: 6}

// keywordTerms returns the keyword leg's terms for a query: each word's
// index key, and with expand, the keys of the words WordNet relates to it
// as weighted alternatives.
func keywordTerms(query string, expand, kinds bool) []keywordindex.Term {
	var tok textkeys.Tokenizer
	var out []keywordindex.Term
	seen := map[string]bool{}
	words := lexicon.Terms(query)
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
		for _, r := range relativesOf(w, kinds) {
			if len(alts) == expansion.perTerm {
				break
			}
			if seen[r.Key] {
				continue // the query's own word, or another's
			}
			seen[r.Key] = true
			alts = append(alts, r)
		}
		out[i].Alts = alts
	}
	return out
}

// relatives holds, by query word, the keys and weights of the relatives
// expansion may look for, best first: a pure function of the word (WordNet
// and the stemmer do not change), a tenth of a search to make for a query
// of four words, and made again for every query that holds the word. It
// is emptied when it holds maxRelatives words, so that a stream of
// distinct words cannot grow it without bound.
var relatives struct {
	mu    sync.Mutex
	words map[string][]keywordindex.Alt
}

const maxRelatives = 4096

// relativesOf is what expansion makes of word's irregular forms, of the
// members of the kind it names (lexicon.Kinds) and of its WordNet
// relatives in WordNet's order (RelatedTo): each one's key and weight, once, without
// the word's own key and those that are stopwords, weigh nothing or are
// not one key. The slice is
// shared: callers must not change it.
func relativesOf(word string, kinds bool) []keywordindex.Alt {
	cached := word
	if !kinds {
		cached = "\x00" + word // cached apart: an evaluation's ablation
	}
	relatives.mu.Lock()
	alts, ok := relatives.words[cached]
	relatives.mu.Unlock()
	if ok {
		return alts
	}
	var tok textkeys.Tokenizer
	own := keyOf(&tok, word)
	add := func(w string, weight float64) {
		key := keyOf(&tok, w)
		if key != "" && key != own && weight > 0 && !lexicon.Stopword(w) &&
			!slices.ContainsFunc(alts, func(a keywordindex.Alt) bool { return a.Key == key }) {
			alts = append(alts, keywordindex.Alt{Key: key, Weight: weight})
		}
	}
	for _, f := range wordnet.Forms(word) {
		add(f, expansion.form)
	}
	var members []string
	if kinds {
		members = lexicon.Kinds(word)
	}
	for _, k := range members {
		if lexicon.SameRelation(word, k) {
			// Another word for one relation is the word: "My new boss
			// is Tom" holds "manager" as "My manager is Priya" does,
			// and corrects it.
			add(k, 1)
		} else {
			add(k, expansion.synonym)
		}
	}
	for _, r := range wordnet.RelatedTo(word, expansion.minWeight) {
		switch r.Relation {
		case wordnet.Synonym:
			add(r.Word, r.Weight*expansion.synonym)
		case wordnet.Derived:
			add(r.Word, r.Weight*expansion.derived)
		}
	}
	alts = alts[:len(alts):len(alts)] // an append by a caller copies
	relatives.mu.Lock()
	if relatives.words == nil || len(relatives.words) >= maxRelatives {
		relatives.words = map[string][]keywordindex.Alt{}
	}
	relatives.words[cached] = alts
	relatives.mu.Unlock()
	return alts
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

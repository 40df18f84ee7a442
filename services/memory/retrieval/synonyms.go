package retrieval

import (
	"slices"
	"strings"
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
func keywordTerms(query string, expand bool) []keywordindex.Term {
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
		for _, r := range relativesOf(w) {
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
	termAt := make(map[string]int, len(words))
	for i, w := range words {
		termAt[w] = i
	}
	addAcronyms(&tok, query, termAt, out, seen)
	addCompounds(&tok, query, termAt, out, seen)
	withFrames(out)
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
func relativesOf(word string) []keywordindex.Alt {
	relatives.mu.Lock()
	alts, ok := relatives.words[word]
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
	for _, k := range lexicon.Kinds(word) {
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
	relatives.words[word] = alts
	relatives.mu.Unlock()
	return alts
}

// acronymWeight is what a note's acronym of consecutive query words
// counts for each of them ("CDN" for "content delivery network").
const acronymWeight = 0.8

// addAcronyms adds, to the terms of a run of three to five consecutive
// query words starting with a word that is not a stopword, the run's
// initials as an alternative ("paid time off" → "pto",
// "General Data Protection Regulation" → "gdpr"): a note may spell out
// the short form only. Initials that make an English word WordNet knows
// ("wit") are left out: they would find that word, not the phrase.
func addAcronyms(tok *textkeys.Tokenizer, query string, termAt map[string]int, out []keywordindex.Term, seen map[string]bool) {
	ws := lexicon.Words(query)
	for start := range ws {
		if lexicon.Stopword(ws[start]) {
			continue
		}
		for end := start + 3; end <= min(start+5, len(ws)); end++ {
			var b strings.Builder
			for _, w := range ws[start:end] {
				b.WriteByte(w[0])
			}
			acr := b.String()
			if _, common := wordnet.Lookup(acr); common > 0 || !isLetters(acr) {
				continue
			}
			key := keyOf(tok, acr)
			if key == "" || seen[key] || lexicon.Stopword(key) {
				continue // "tabs or spaces" is no "to", which "tos" stems to
			}
			seen[key] = true
			for _, w := range ws[start:end] {
				if i, ok := termAt[w]; ok {
					out[i].Alts = append(out[i].Alts, keywordindex.Alt{Key: key, Weight: acronymWeight})
				}
			}
		}
	}
}

// addCompounds adds, to the first of a hyphenated query word's parts that
// is a term (termAt: a term's index in out), the word written in one as an
// alternative at the word's own weight ("stand-up", "e-mail"): a note may
// write "standup".
func addCompounds(tok *textkeys.Tokenizer, query string, termAt map[string]int, out []keywordindex.Term, seen map[string]bool) {
	for _, f := range strings.Fields(query) {
		parts := strings.Split(strings.Trim(strings.ToLower(f), "\"'“”‘’()[]{}.,;:!?"), "-")
		if len(parts) < 2 || slices.ContainsFunc(parts, func(p string) bool { return p == "" || !isLetters(p) }) {
			continue
		}
		at := -1
		for _, p := range parts {
			if i, ok := termAt[p]; ok {
				at = i
				break
			}
		}
		key := keyOf(tok, strings.Join(parts, ""))
		if at < 0 || key == "" || seen[key] {
			continue
		}
		seen[key] = true
		out[at].Alts = append(out[at].Alts, keywordindex.Alt{Key: key, Weight: 1})
	}
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
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

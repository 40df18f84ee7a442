// Package lexicon is what memory's search and answers take a text's words
// to be: a query's searchable words (Terms), words split as the keyword
// index splits them, a loose stem, typo-tolerant comparison and the
// stopwords that carry no meaning for retrieval. Pure text; the hash
// embedder's stored vectors depend on Stem, so it changes with care.
package lexicon

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openhuman-go/openhuman-go/pkg/editdistance"
	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
)

// maxTerms bounds the words taken from one query: a pasted page must not turn
// into a thousand-term search.
const maxTerms = 32

// Terms returns a query's searchable words: lowercased, without stopwords
// and duplicates, in order of appearance.
func Terms(query string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range withIdioms(Words(query)) {
		if stopwords[w] || seen[w] || (utf8.RuneCountInString(w) < 2 && !isDigits(w) && !IsSymbol(w)) {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == maxTerms {
			break
		}
	}
	return out
}

// firstPerson are the words by which a question speaks of the user.
var firstPerson = map[string]bool{"i": true, "me": true, "my": true, "mine": true, "myself": true}

// questionWords ask; they are not what is asked about.
var questionWords = map[string]bool{"who": true, "whom": true, "whose": true, "what": true, "which": true,
	"when": true, "where": true, "why": true, "how": true}

// FirstPersonWord reports whether w (lowercased) is a word by which a
// question speaks of the user: "I", "me", "my", "mine", "myself".
func FirstPersonWord(w string) bool { return firstPerson[w] }

// Ours reports whether w (lowercased) is "my" or "our": what follows is
// the user's own ("my wife", "our dog").
func Ours(w string) bool { return w == "my" || w == "our" }

// Words splits s into lowercased runs of letters and digits, and symbols
// (emoji) one by one, as the keyword index does.
func Words(s string) []string {
	s = strings.ToLower(s)
	var out []string
	start := -1
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, s[start:i])
			start = -1
		}
		if textkeys.IsSymbol(r) {
			out = append(out, s[i:i+utf8.RuneLen(r)])
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// IsSymbol reports whether a word is one symbol (an emoji).
func IsSymbol(w string) bool {
	r, n := utf8.DecodeRuneInString(w)
	return n == len(w) && textkeys.IsSymbol(r)
}

func isDigits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return s != ""
}

// Stem strips common English suffixes so "deploys", "deployed" and "deploying"
// compare equal. It is looser than the keyword index's Porter stemmer on
// purpose: it decides which query words a hit contains (recall's relevance
// cut) and feeds the hash embedder, whose stored vectors depend on it.
func Stem(w string) string {
	// Twice, for stacked suffixes: deployments → deployment → deploy.
	return stripSuffix(stripSuffix(w))
}

func stripSuffix(w string) string {
	for _, suf := range []string{"ational", "ation", "ness", "ment", "ings", "ing", "edly", "ed", "ies", "es", "ly", "s", "y", "e"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

// Near reports whether two stems are the same word up to a typo: same first
// letter, and one edit (insert, delete, substitute, swap two neighbours)
// for stems of 4 to 7 letters, two from 8 on. Shorter stems must match
// exactly: "cat" and "car" are different words, not a typo.
func Near(a, b string) bool {
	if a == b {
		return true
	}
	n := min(len(a), len(b))
	allowed := 0
	switch {
	case n >= 8:
		allowed = 2
	case n >= 4:
		allowed = 1
	}
	if allowed == 0 || a[0] != b[0] || abs(len(a)-len(b)) > allowed {
		return false
	}
	return editdistance.Within(a, b, allowed)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Coverage counts how many of terms occur in text, comparing stems.
func Coverage(terms []string, text string) int {
	have := map[string]bool{}
	for _, w := range Words(text) {
		have[Stem(w)] = true
	}
	n := 0
	for _, t := range terms {
		if have[Stem(t)] {
			n++
		}
	}
	return n
}

// stopwords carry no meaning for retrieval; matching on them would make every
// question "relevant" to every item.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because been
		before being below between both but by can could did do does doing done down during each either else ever
		every few for from further get got had has have having he her here hers herself him himself his how i if in
		into is it its itself just know let like me might more most much must my myself no nor not now of off on
		once only or other ought our ours ourselves out over own please remember same say said shall she should so
		some such tell than that the their theirs them themselves then there these they this those through to too
		under until up upon us very was we were what when where which while who whom whose why will with would yes
		yet you your yours yourself yourselves`) {
		m[w] = true
	}
	return m
}()

// Stopword reports whether w (lowercased) carries no meaning for retrieval.
func Stopword(w string) bool { return stopwords[w] }

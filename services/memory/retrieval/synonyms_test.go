package retrieval

import (
	"fmt"
	"slices"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory/keywordindex"
	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
)

// altKeys are the alternative keys keywordTerms gives a query's word.
func altKeys(query, word string) []string {
	var out []string
	for i, w := range lexicon.Terms(query) {
		if w == word {
			for _, a := range keywordTerms(query, true)[i].Alts {
				out = append(out, a.Key)
			}
		}
	}
	return out
}

func TestKeywordTermsAcronyms(t *testing.T) {
	key := func(w string) string { return textkeys.Keys([]string{w})[0] }
	for _, tc := range []struct{ query, word, acronym string }{
		{"who is our content delivery network provider", "delivery", "cdn"},
		{"how much paid time off do we get", "paid", "pto"},
		{"where are architecture decision records kept", "records", "adr"},
		{"deletion under the General Data Protection Regulation", "protection", "gdpr"},
	} {
		if alts := altKeys(tc.query, tc.word); !slices.Contains(alts, key(tc.acronym)) {
			t.Errorf("%q: %q may stand for %q, got alternatives %q", tc.query, tc.acronym, tc.word, alts)
		}
	}
	// Initials that spell a word are that word, not an acronym: "what is
	// the" makes "wit".
	if alts := altKeys("what is the weather", "weather"); slices.Contains(alts, key("wit")) {
		t.Errorf("an English word was taken for an acronym: %q", alts)
	}
	// Nor are initials whose key is a stopword: "tabs or spaces" makes
	// "tos", which is stemmed as "to".
	if alts := altKeys("tabs or spaces", "tabs"); slices.Contains(alts, "to") {
		t.Errorf("a stopword was taken for an acronym: %q", alts)
	}
	// Keyword mode looks for the words only.
	for _, term := range keywordTerms("content delivery network", false) {
		if len(term.Alts) > 0 {
			t.Errorf("unexpanded term %q has alternatives %v", term.Key, term.Alts)
		}
	}
}

// A query's terms are the same whether its words' relatives are made for
// it or kept from an earlier query, whose own words take relatives first;
// and the words kept stay bounded.
func TestKeywordTermsRelativesKept(t *testing.T) {
	queries := []string{"deploy decision for team 150", "team decision deploy", "car automobile auto",
		"who runs the postgres migration", "the migration runs now", "content delivery network provider"}
	fresh := make([][]keywordindex.Term, len(queries))
	for i, q := range queries {
		relatives.mu.Lock()
		relatives.words = nil
		relatives.mu.Unlock()
		fresh[i] = keywordTerms(q, true)
	}
	for range 2 {
		for i, q := range queries {
			if got := keywordTerms(q, true); fmt.Sprint(got) != fmt.Sprint(fresh[i]) {
				t.Fatalf("%q: %v with relatives kept, %v made afresh", q, got, fresh[i])
			}
		}
	}
	for i := range maxRelatives + 10 {
		relativesOf(fmt.Sprintf("w%dx", i))
	}
	if n := len(relatives.words); n > maxRelatives {
		t.Fatalf("%d words kept, more than %d", n, maxRelatives)
	}
}

package retrieval

import (
	"fmt"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory/keywordindex"
)

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
		fresh[i] = keywordTerms(q, true, true)
	}
	for range 2 {
		for i, q := range queries {
			if got := keywordTerms(q, true, true); fmt.Sprint(got) != fmt.Sprint(fresh[i]) {
				t.Fatalf("%q: %v with relatives kept, %v made afresh", q, got, fresh[i])
			}
		}
	}
	for i := range maxRelatives + 10 {
		relativesOf(fmt.Sprintf("w%dx", i), true)
	}
	if n := len(relatives.words); n > maxRelatives {
		t.Fatalf("%d words kept, more than %d", n, maxRelatives)
	}
}

package keywordindex

import (
	"fmt"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
)

// BenchmarkKeywordIndexSearchCommon is the keyword leg of a fetch whose
// words every one of 3,000 notes holds (notes of one form: "Note N: deploy
// decision for team T"), and a rare word.
func BenchmarkKeywordIndexSearchCommon(b *testing.B) {
	x := New()
	for i := 1; i <= 3000; i++ {
		x.Add(int64(i), fmt.Sprintf("Note %d: deploy decision for team %d, owner w%dx.", i, i%40, i%300))
	}
	keys := textkeys.Keys([]string{"deploy", "decision", "team", "7"})
	b.ResetTimer()
	for b.Loop() {
		x.Search(keys, fetchDepth, 1<<40, nil)
	}
}

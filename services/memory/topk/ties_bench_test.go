package topk

import (
	"math/rand"
	"testing"
)

// BenchmarkSelectTies is a keyword leg's ranking when every item holds the
// query's words the same number of times in texts of one length: 3,000
// hits of one score, the best 200 wanted.
func BenchmarkSelectTies(b *testing.B) {
	r := rand.New(rand.NewSource(3))
	hits := make([]Ranked, 3000)
	for i := range hits {
		hits[i] = Ranked{Seq: int64(r.Intn(1 << 30)), Score: 2.5}
	}
	for b.Loop() {
		Select(hits, 200)
	}
}

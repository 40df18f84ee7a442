package retrieval

import (
	"math/rand"
	"testing"
)

// seqTable answers as a map does, reused at every size, over consecutive
// seqs (as a memory's are) and scattered ones.
func TestSeqTable(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	var tab seqTable
	for round := range 200 {
		n := r.Intn(500)
		tab.reset(n)
		want := map[int64]int{}
		base := int64(1 + r.Intn(1e6))
		for len(want) < n {
			seq := base + int64(len(want))
			if round%2 == 1 {
				seq = 1 + r.Int63n(1<<40)
			}
			if _, dup := want[seq]; dup {
				continue
			}
			want[seq] = len(want)
			tab.put(seq, want[seq])
		}
		for seq, i := range want {
			if got, ok := tab.get(seq); !ok || got != i {
				t.Fatalf("round %d: get(%d) = %d, %v; want %d", round, seq, got, ok, i)
			}
			if _, ok := tab.get(seq + 1<<41); ok {
				t.Fatalf("round %d: found %d, never put", round, seq+1<<41)
			}
		}
	}
}

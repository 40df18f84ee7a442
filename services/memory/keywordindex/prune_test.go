package keywordindex

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
)

// Scoring only the items that hold a rare term gives the same k best, with
// the same scores to the bit, as scoring every item: over random memories
// where some words are in nearly every item, with alternatives, filters,
// universes, removed items and several depths.
func TestPruneRanksAsEveryItem(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	pruned := 0
	for round := range 60 {
		x := New()
		items := 200 + r.Intn(3000)
		rare := 5 + r.Intn(200)
		var seqs []int64
		for i := 1; i <= items; i++ {
			text := fmt.Sprintf("note %d team decision", i)
			if r.Intn(4) > 0 {
				text += " common"
			}
			for range r.Intn(8) {
				text += fmt.Sprintf(" w%dx", r.Intn(rare))
			}
			if r.Intn(3) == 0 {
				text += " team"
			}
			x.Add(int64(i), text)
			seqs = append(seqs, int64(i))
		}
		for range r.Intn(20) {
			x.Remove(int64(1 + r.Intn(items)))
		}
		for q := range 20 {
			var terms []Term
			for _, w := range []string{"team", "decision", "common", fmt.Sprintf("w%dx", r.Intn(rare)), fmt.Sprintf("w%dx", r.Intn(rare)), "absent"} {
				if r.Intn(3) == 0 {
					continue
				}
				t := Term{Key: textkeys.Keys([]string{w})[0]}
				if r.Intn(3) == 0 {
					t.Alts = append(t.Alts, Alt{Key: textkeys.Keys([]string{fmt.Sprintf("w%dx", r.Intn(rare))})[0], Weight: 0.5 + r.Float64()/2})
				}
				terms = append(terms, t)
			}
			k := []int{1, 10, 50, 200, 1000}[r.Intn(5)]
			asOf := int64(items)
			if r.Intn(4) == 0 {
				asOf = int64(r.Intn(items))
			}
			var allowed, universe []int64
			if r.Intn(4) == 0 {
				for _, s := range seqs {
					if r.Intn(2) == 0 && s <= asOf {
						universe = append(universe, s)
					}
				}
				if universe == nil {
					universe = []int64{}
				}
			}
			if r.Intn(4) == 0 {
				src := seqs
				if universe != nil {
					src = universe
				}
				allowed = []int64{}
				for _, s := range src {
					if r.Intn(3) > 0 {
						allowed = append(allowed, s)
					}
				}
			}
			n, total, ok := x.collection(asOf, universe)
			if !ok {
				continue
			}
			if universe != nil && allowed == nil {
				allowed = universe
			}
			all, _ := x.search(terms, k, asOf, allowed, n, total, universe, false)
			got, did := x.search(terms, k, asOf, allowed, n, total, universe, true)
			if !slices.Equal(got, all) {
				t.Fatalf("round %d query %d (%+v, k %d, pruned %v): got %v\nall %v", round, q, terms, k, did, got, all)
			}
			if did {
				pruned++
			}
		}
	}
	t.Logf("pruned %d", pruned)
	if pruned < 50 {
		t.Fatalf("only %d searches pruned: the test does not reach the pruned path", pruned)
	}
}

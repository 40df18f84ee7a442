package vectorindex

import (
	"math/rand"
	"sort"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory/topk"
)

// fetchDepth is how deep memory.fetch reads each ranking.
const fetchDepth = 200

func randomUnit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return Normalize(v)
}

func exactTop(vs map[int64][]float32, q []float32, k int, allowed map[int64]bool) []int64 {
	type sc struct {
		seq int64
		s   float32
	}
	var all []sc
	for seq, v := range vs {
		if allowed == nil || allowed[seq] {
			var d float32
			for i := range v {
				d += v[i] * q[i]
			}
			all = append(all, sc{seq, d})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].s > all[j].s })
	out := []int64{}
	for i := 0; i < k && i < len(all); i++ {
		out = append(out, all[i].seq)
	}
	return out
}

func recallAt(got []topk.Ranked, want []int64) float64 {
	w := map[int64]bool{}
	for _, s := range want {
		w[s] = true
	}
	n := 0
	for _, h := range got {
		if w[h.Seq] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

func TestVectorIndexAgreesWithExactSearch(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	const dim = 256
	for _, size := range []int{500, 20000} {
		idx := New(dim)
		vs := map[int64][]float32{}
		for i := 1; i <= size; i++ {
			// Clustered data, as embeddings of related notes are.
			base := randomUnit(r, dim)
			if i > 1 && i%5 != 0 {
				near := vs[int64(i-1)]
				for j := range base {
					base[j] = 0.8*near[j] + 0.2*base[j]
				}
				Normalize(base)
			}
			vs[int64(i)] = base
			idx.Put(int64(i), base)
		}
		var total float64
		const queries = 40
		for n := 0; n < queries; n++ {
			q := vs[int64(1+r.Intn(size))]
			total += recallAt(idx.Search(q, 10, nil), exactTop(vs, q, 10, nil))
		}
		if avg := total / queries; avg < 0.9 {
			t.Errorf("%d vectors: recall@10 %.2f against exact search, want >= 0.9", size, avg)
		}
		// With a filter the search is exact over what passes it.
		allowed := map[int64]bool{}
		var list []int64
		for seq := range vs {
			if seq%7 == 0 {
				allowed[seq] = true
				list = append(list, seq)
			}
		}
		q := randomUnit(r, dim)
		got := idx.Search(q, 10, list)
		for _, h := range got {
			if !allowed[h.Seq] {
				t.Fatalf("filtered search returned %d, which the filter excludes", h.Seq)
			}
		}
		if rec := recallAt(got, exactTop(vs, q, 10, allowed)); size <= exactBelow*7 && rec < 0.9 {
			t.Errorf("%d vectors, filtered: recall@10 %.2f", size, rec)
		}
	}
}

// TestVectorIndexLargeFilterAndRemovals covers the pre-pass paths: a filter
// passing more than exactBelow items, and removed slots that must not come
// back from a search over everything.
func TestVectorIndexLargeFilterAndRemovals(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	const dim, size = 256, 15000
	idx := New(dim)
	vs := map[int64][]float32{}
	for i := int64(1); i <= size; i++ {
		vs[i] = randomUnit(r, dim)
		idx.Put(i, vs[i])
	}
	removed := map[int64][]float32{}
	for i := int64(1); i <= size; i += 3 {
		idx.Remove(i)
		removed[i] = vs[i]
		delete(vs, i)
	}
	allowed := map[int64]bool{}
	var list []int64
	for seq := range vs {
		if seq%2 == 0 {
			allowed[seq] = true
			list = append(list, seq)
		}
	}
	if len(list) <= exactBelow {
		t.Fatalf("filter passes %d items; the test needs more than %d", len(list), exactBelow)
	}
	var unfiltered, filtered float64
	const queries = 20
	for n := 0; n < queries; n++ {
		// A removed item's own vector: the nearest thing to it is itself,
		// which must not be found.
		q := randomUnit(r, dim)
		if n%2 == 0 {
			q = removed[int64(1+3*r.Intn(size/3))]
		}
		got := idx.Search(q, 10, nil)
		for _, h := range got {
			if removed[h.Seq] != nil {
				t.Fatalf("search returned removed item %d", h.Seq)
			}
		}
		unfiltered += recallAt(got, exactTop(vs, q, 10, nil))
		got = idx.Search(q, 10, list)
		for _, h := range got {
			if !allowed[h.Seq] {
				t.Fatalf("filtered search returned %d, which the filter excludes", h.Seq)
			}
		}
		filtered += recallAt(got, exactTop(vs, q, 10, allowed))
	}
	// Random vectors have no near neighbours, the pre-pass's hardest case
	// (the clustered test above holds quality to 0.9); a wrong slot or
	// distance would bring this near 0.
	if unfiltered/queries < 0.8 || filtered/queries < 0.8 {
		t.Errorf("recall@10 %.2f unfiltered, %.2f filtered; want >= 0.8", unfiltered/queries, filtered/queries)
	}
}

func TestVectorIndexRemoveAndReuse(t *testing.T) {
	idx := New(4)
	idx.Put(1, []float32{1, 0, 0, 0})
	idx.Put(2, []float32{0, 1, 0, 0})
	idx.Remove(1)
	idx.Put(3, []float32{0.9, 0.1, 0, 0})
	got := idx.Search([]float32{0.8, 0.6, 0, 0}, 5, nil)
	if len(got) != 2 || got[0].Seq != 3 || idx.Len() != 2 {
		t.Fatalf("%+v", got)
	}
	idx.Put(3, []float32{0, 0, 1, 0}) // replace
	if got := idx.Search([]float32{1, 0, 0, 0}, 1, nil); len(got) > 0 && got[0].Seq == 3 {
		t.Fatalf("replaced vector still scored as before: %+v", got)
	}
}

// TestVectorIndexLeavesOutNothingAlike: a vector at a right angle to the
// query, or pointing away from it, is not returned, however few are asked
// for or found.
func TestVectorIndexLeavesOutNothingAlike(t *testing.T) {
	idx := New(4)
	idx.Put(1, []float32{1, 0, 0, 0})
	idx.Put(2, []float32{0, 1, 0, 0})
	idx.Put(3, []float32{-1, 0, 0, 0})
	idx.Put(4, []float32{0.6, 0, 0.8, 0})
	for _, allowed := range [][]int64{nil, {1, 2, 3, 4}} {
		got := idx.Search([]float32{1, 0, 0, 0}, 10, allowed)
		if len(got) != 2 || got[0].Seq != 1 || got[1].Seq != 4 {
			t.Errorf("allowed %v: got %+v, want 1 and 4 alone", allowed, got)
		}
	}
	if got := idx.Search([]float32{0, 0, 0, 1}, 10, nil); len(got) != 0 {
		t.Errorf("a query near none found %+v", got)
	}
}

// BenchmarkVectorIndexSearch is the vector leg of a fetch at 10k items: the
// binary pre-pass over every code, then the int8 rescore of the survivors.
func BenchmarkVectorIndexSearch(b *testing.B) {
	r := rand.New(rand.NewSource(3))
	const dim = 256
	idx := New(dim)
	for i := 1; i <= 10000; i++ {
		idx.Put(int64(i), randomUnit(r, dim))
	}
	qs := make([][]float32, 64)
	for i := range qs {
		qs[i] = randomUnit(r, dim)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		idx.Search(qs[i%len(qs)], fetchDepth+16, nil)
	}
}

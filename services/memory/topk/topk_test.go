package topk

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// Select agrees with a full sort: on scores with many ties, on scores that
// differ by less than float32 can tell apart, and when all scores tie; in
// short rankings and in long ones.
func TestSelect(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	scores := map[string]func(i int) float64{
		"ties":    func(int) float64 { return float64(r.Intn(20)) },
		"close":   func(int) float64 { return 1 + float64(r.Intn(1000))*1e-12 },
		"equal":   func(int) float64 { return 0.5 },
		"signs":   func(int) float64 { return r.NormFloat64() },
		"cosines": func(int) float64 { return 0.4 + r.Float64()*0.05 },
		"two":     func(int) float64 { return float64(r.Intn(2)) + 1e-9*float64(r.Intn(3)) },
	}
	for name, score := range scores {
		sizes := []int{700, 3000}
		for n := 0; n < 300; n += 7 {
			sizes = append(sizes, n)
		}
		for _, n := range sizes {
			for _, k := range []int{0, 1, 5, 216, n / 2, max(n-1, 0), n, n + 3} {
				hits := make([]Ranked, n)
				for i := range hits {
					hits[i] = Ranked{Seq: int64(r.Intn(1000) + 1), Score: score(i)}
				}
				want := append([]Ranked(nil), hits...)
				slices.SortFunc(want, compareRanked)
				want = want[:min(k, n)]
				if got := Select(hits, k); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%s n=%d k=%d: got %v, want %v", name, n, k, got, want)
				}
			}
		}
	}
}

// largestFirst puts the k largest keys first, duplicates included.
func TestLargestFirst(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for n := 0; n < 300; n += 7 {
		for _, k := range []int{1, 5, n / 2, n, n + 3} {
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = uint64(r.Intn(20))
			}
			want := slices.Clone(keys)
			slices.Sort(want)
			slices.Reverse(want)
			want = want[:min(k, n)]
			largestFirst(keys, k)
			got := slices.Clone(keys[:min(k, n)])
			slices.Sort(got)
			slices.Reverse(got)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d k=%d: got %v, want %v", n, k, got, want)
			}
		}
	}
}

// largestFirst's sampled threshold, on keys enough to sample: one that
// about twice k keys pass, and one that too few pass because the sampled
// places hold the largest keys, where the whole is quickselected instead.
func TestLargestFirstSampled(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, n := range []int{sampleOver, 2048, 3000, 10_000} {
		for _, k := range []int{1, 16, 216, n / 4} {
			for _, placed := range []bool{false, true} {
				keys := make([]uint64, n)
				for i := range keys {
					keys[i] = uint64(r.Intn(1 << 20))
					if placed && i%(n/sampleSize) == 0 {
						keys[i] += 1 << 40
					}
				}
				want := slices.Clone(keys)
				slices.Sort(want)
				slices.Reverse(want)
				want = want[:k]
				largestFirst(keys, k)
				got := slices.Clone(keys[:k])
				slices.Sort(got)
				slices.Reverse(got)
				if !slices.Equal(got, want) {
					t.Fatalf("n=%d k=%d placed=%v: the k largest differ", n, k, placed)
				}
			}
		}
	}
}

// BenchmarkSelect is the vector leg's ranking at 10k items: the best 216
// (memory.fetch's depth of 200, and 16 more) of the 1,024 candidates its
// pre-pass keeps, by Select and by sorting them all; and at 3,000 items
// with no pre-pass, cosines close together.
func BenchmarkSelect(b *testing.B) {
	r := rand.New(rand.NewSource(9))
	all := make([]Ranked, 3000)
	for i := range all {
		all[i] = Ranked{Seq: int64(i + 1), Score: float64(float32(0.3 + 0.2*r.Float64()))}
	}
	b.Run("select-3000", func(b *testing.B) {
		for b.Loop() {
			Select(all, 216)
		}
	})
	hits := make([]Ranked, 1024)
	for i := range hits {
		hits[i] = Ranked{Seq: int64(r.Intn(10000) + 1), Score: float64(float32(r.NormFloat64()))}
	}
	const k = 216
	b.Run("select", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Select(hits, k)
		}
	})
	b.Run("sort", func(b *testing.B) {
		sorted := make([]Ranked, len(hits))
		for i := 0; i < b.N; i++ {
			copy(sorted, hits)
			slices.SortFunc(sorted, compareRanked)
			_ = sorted[:k]
		}
	})
}

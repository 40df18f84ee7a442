package vectorindex

import (
	"bytes"
	"math/bits"
	"math/rand"
	"os"
	"runtime"
	"slices"
	"testing"
)

// TestDot8Go checks the portable dot product against a plain loop on
// codes of every length up to 300, including the extremes of int8.
func TestDot8Go(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for n := 0; n <= 300; n++ {
		a, b := make([]int8, n), make([]int8, n)
		for i := range a {
			a[i], b[i] = int8(r.Intn(256)-128), int8(r.Intn(256)-128)
		}
		if n%7 == 0 {
			for i := range a {
				a[i], b[i] = -128, -128
			}
		}
		var want int32
		for i := range a {
			want += int32(a[i]) * int32(b[i])
		}
		if got := dot8Go(a, b); got != want {
			t.Fatalf("n=%d: dot8Go = %d, want %d", n, got, want)
		}
	}
}

// BenchmarkDotSlots is the rescore of a search at 10k items: 1,024
// scattered 256-component codes.
func BenchmarkDotSlots(b *testing.B) {
	r := rand.New(rand.NewSource(13))
	const dim, items = 256, 10000
	base := make([]int8, dim*items)
	for i := range base {
		base[i] = int8(r.Intn(255) - 127)
	}
	slots := make([]int32, 1024)
	for i := range slots {
		slots[i] = int32(r.Intn(items))
	}
	q, out := base[:dim], make([]int32, len(slots))
	b.Run("batched", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			dotSlots(base, dim, slots, q, out)
		}
	})
	b.Run("avx2", func(b *testing.B) {
		vnni := useVNNI
		defer func() { useVNNI = vnni }()
		useVNNI = false
		for i := 0; i < b.N; i++ {
			dotSlots(base, dim, slots, q, out)
		}
	})
	b.Run("portable", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			dotSlotsGo(base, dim, slots, q, out)
		}
	})
}

// BenchmarkHammingHist is the pre-pass of a search at 10k items: the
// distance of every 256-bit code to the query's, counted in a histogram.
func BenchmarkHammingHist(b *testing.B) {
	r := rand.New(rand.NewSource(15))
	const items = 10000
	codes := make([]uint64, 4*items)
	for i := range codes {
		codes[i] = r.Uint64()
	}
	q, ds := codes[:4], make([]uint16, items)
	b.Run("batched", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var hist [1025]uint32
			hammingHist(codes, q, 4, ds, &hist)
		}
	})
	b.Run("portable", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var hist [1025]uint32
			hammingHistGo(codes, q, 4, ds, &hist)
		}
	})
}

// This project's CI machines have AVX2: the vectorized path must be the
// one measured there, and its detection must agree with /proc/cpuinfo.
func TestAVX2Detection(t *testing.T) {
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil || runtime.GOARCH != "amd64" {
		t.Skip("no /proc/cpuinfo on amd64 here")
	}
	if want := bytes.Contains(info, []byte(" avx2")); useAVX2 != want {
		t.Errorf("useAVX2 = %v, /proc/cpuinfo says avx2 %v", useAVX2, want)
	}
	if want := bytes.Contains(info, []byte(" avx512f")) && bytes.Contains(info, []byte(" avx512_vnni")); useVNNI != want {
		t.Errorf("useVNNI = %v, /proc/cpuinfo says avx512f and avx512_vnni %v", useVNNI, want)
	}
}

// TestDotKernelsAgree holds the VNNI and AVX2 dot product kernels, where
// the CPU has them, to the portable one, each in turn.
func TestDotKernelsAgree(t *testing.T) {
	vnni := useVNNI
	defer func() { useVNNI = vnni }()
	for _, on := range []bool{true, false} {
		useVNNI = vnni && on
		TestBatchKernelsMatchPortable(t)
	}
}

// TestBatchKernelsMatchPortable checks the batched Hamming and dot product
// kernels against plain loops, over counts and lengths that exercise their
// edges, with components at the extremes quantize produces.
func TestBatchKernelsMatchPortable(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	for n := 0; n <= 40; n++ {
		codes := make([]uint64, 4*n)
		for i := range codes {
			codes[i] = r.Uint64()
		}
		if n%5 == 0 && n > 0 {
			codes[0], codes[1], codes[2], codes[3] = ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)
		}
		q := []uint64{r.Uint64(), r.Uint64(), 0, ^uint64(0)}
		var hist, wantHist [1025]uint32
		ds := make([]uint16, n)
		hammingHist(codes, q, 4, ds, &hist)
		for i := 0; i < n; i++ {
			d := 0
			for w := 0; w < 4; w++ {
				d += bits.OnesCount64(codes[4*i+w] ^ q[w])
			}
			if int(ds[i]) != d {
				t.Fatalf("n=%d: distance %d = %d, want %d", n, i, ds[i], d)
			}
			wantHist[d]++
		}
		if hist != wantHist {
			t.Fatalf("n=%d: histogram differs", n)
		}
		var goHist [1025]uint32
		goDs := make([]uint16, n)
		hammingHistGo(codes, q, 4, goDs, &goHist)
		if !slices.Equal(goDs, ds) || goHist != wantHist {
			t.Fatalf("n=%d: portable Hamming kernel differs", n)
		}
	}
	for _, dim := range []int{31, 32, 33, 64, 96, 100, 256, 768} {
		const items = 50
		base := make([]int8, items*dim)
		for i := range base {
			base[i] = int8(r.Intn(255) - 127)
		}
		for i := 0; i < dim; i++ {
			base[i] = 127 // slot 0 at the extreme
		}
		q := make([]int8, dim)
		for i := range q {
			q[i] = int8(r.Intn(255) - 127)
		}
		q[0], q[1] = 127, -127
		slots := []int32{0, 49, 3, 3, 17, 0}
		out := make([]int32, len(slots))
		dotSlots(base, dim, slots, q, out)
		for i, s := range slots {
			var want int32
			for j := 0; j < dim; j++ {
				want += int32(base[int(s)*dim+j]) * int32(q[j])
			}
			if out[i] != want {
				t.Fatalf("dim=%d slot %d: %d, want %d", dim, s, out[i], want)
			}
		}
		goOut := make([]int32, len(slots))
		dotSlotsGo(base, dim, slots, q, goOut)
		if !slices.Equal(goOut, out) {
			t.Fatalf("dim=%d: portable dot kernel gives %v, want %v", dim, goOut, out)
		}
		for i := range q {
			q[i] = 127
		}
		dotSlots(base, dim, slots[:1], q, out)
		if want := int32(127 * 127 * dim); out[0] != want {
			t.Fatalf("dim=%d, all components 127: %d, want %d", dim, out[0], want)
		}
	}
}

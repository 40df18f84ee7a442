package memory

import (
	"bytes"
	"math/rand"
	"os"
	"runtime"
	"testing"
)

// TestDot8MatchesPortable checks the vectorized dot product against the
// portable loop on random codes of every length up to 300, including the
// extremes of int8.
func TestDot8MatchesPortable(t *testing.T) {
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
		if got := dot8(a, b); got != want {
			t.Fatalf("n=%d: dot8 = %d, want %d", n, got, want)
		}
		if got := dot8Go(a, b); got != want {
			t.Fatalf("n=%d: dot8Go = %d, want %d", n, got, want)
		}
	}
}

func BenchmarkDot8(b *testing.B) {
	x, y := make([]int8, 256), make([]int8, 256)
	for i := range x {
		x[i], y[i] = int8(i), int8(i*7)
	}
	b.Run("dot8", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			dot8(x, y)
		}
	})
	b.Run("portable", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			dot8Go(x, y)
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
}

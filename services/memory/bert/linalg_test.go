package bert

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLinearMatchesNaive checks the blocked, parallel product against the
// textbook loop, on shapes that leave odd rows and columns and on one
// large enough to be split across cores.
func TestLinearMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range []struct{ n, in, out int }{{1, 3, 1}, {5, 7, 3}, {4, 8, 2}, {7, 200, 101}, {33, 384, 384}} {
		l := linear{w: make([]float32, s.in*s.out), b: make([]float32, s.out), in: s.in, out: s.out}
		x := make([]float32, s.n*s.in)
		for _, v := range [][]float32{l.w, l.b, x} {
			for i := range v {
				v[i] = float32(r.NormFloat64())
			}
		}
		y := make([]float32, s.n*s.out)
		l.apply(x, y, s.n)
		for i := range s.n {
			for j := range s.out {
				want := float64(l.b[j])
				for k := range s.in {
					want += float64(x[i*s.in+k]) * float64(l.w[j*s.in+k])
				}
				if d := math.Abs(want - float64(y[i*s.out+j])); d > 1e-3 {
					t.Fatalf("%+v: [%d,%d] = %g, want %g", s, i, j, y[i*s.out+j], want)
				}
			}
		}
	}
}

// TestLoadRefusesMismatch: weights that do not fit the config are refused
// with the tensor named.
func TestLoadRefusesMismatch(t *testing.T) {
	vocab := testVocab()
	c := testConfig(len(vocab))
	ts := randomTensors(c, 1, false)
	delete(ts, "encoder.layer.1.output.dense.bias")
	ts["embeddings.word_embeddings.weight"] = Tensor{Shape: []int{3, 3}, Data: make([]float32, 9)}
	dir := t.TempDir()
	writeModelDir(t, dir, c, vocab, ts)
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), "output.dense.bias is missing") || !strings.Contains(err.Error(), "word_embeddings") {
		t.Fatalf("got %v", err)
	}
}

// TestKernelsAgree: the assembly kernel, where this build and processor
// have it, gives the Go loop's dot products up to rounding.
func TestKernelsAgree(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no assembly kernel here (another processor, or the purego tag)")
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, in := range []int{8, 16, 384, 1536} {
		x, w0, w1 := make([]float32, 4*in), make([]float32, in), make([]float32, in)
		for _, v := range [][]float32{x, w0, w1} {
			for i := range v {
				v[i] = float32(r.NormFloat64())
			}
		}
		var got, want [8]float32
		kernel4x2(x, w0, w1, in, &got)
		kernel4x2Go(x, w0, w1, in, &want)
		for i := range got {
			if d := math.Abs(float64(got[i] - want[i])); d > 1e-4*math.Sqrt(float64(in)) {
				t.Errorf("in %d, s[%d]: %g, want %g", in, i, got[i], want[i])
			}
		}
	}
}

func TestErf32(t *testing.T) {
	var worst float64
	for i := -800_000; i <= 800_000; i++ {
		x := float64(i) / 100_000
		worst = max(worst, math.Abs(float64(erf32(float32(x)))-math.Erf(x)))
	}
	if worst > 5e-7 {
		t.Fatalf("erf32 is %g from math.Erf", worst)
	}
}

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

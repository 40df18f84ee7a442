package bert

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
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

func TestHalfToFloat(t *testing.T) {
	for h, want := range map[uint16]float32{
		0x3c00: 1, 0xc000: -2, 0x3555: 0.33325195, 0x7bff: 65504, 0x0001: 5.9604645e-08,
		0x0200: 3.0517578e-05, 0x8000: float32(math.Copysign(0, -1)), 0x7c00: float32(math.Inf(1)),
	} {
		if got := halfToFloat(h); got != want || math.Signbit(float64(got)) != math.Signbit(float64(want)) {
			t.Errorf("%#04x: got %g, want %g", h, got, want)
		}
	}
}

// TestSafetensorsRefusesDamage: a cut file, a header out of bounds, a
// tensor whose bytes do not hold its shape and an unread type are errors,
// not garbage weights.
func TestSafetensorsRefusesDamage(t *testing.T) {
	var good bytes.Buffer
	if err := WriteSafetensors(&good, map[string]Tensor{"a": {Shape: []int{2, 3}, Data: []float32{1, 2, 3, 4, 5, 6}}}); err != nil {
		t.Fatal(err)
	}
	header := func(json string) []byte {
		b := binary.LittleEndian.AppendUint64(nil, uint64(len(json)))
		return append(append(b, json...), make([]byte, 24)...)
	}
	for name, data := range map[string][]byte{
		"cut":          good.Bytes()[:good.Len()-4],
		"huge header":  binary.LittleEndian.AppendUint64(nil, 1<<40),
		"wrong size":   header(`{"a":{"dtype":"F32","shape":[2,4],"data_offsets":[0,24]}}`),
		"unread dtype": header(`{"a":{"dtype":"I64","shape":[3],"data_offsets":[0,24]}}`),
		"not json":     header(`{"a":`),
	} {
		path := filepath.Join(t.TempDir(), "m.safetensors")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadSafetensors(path); err == nil {
			t.Errorf("%s: read without error", name)
		}
	}
	path := filepath.Join(t.TempDir(), "m.safetensors")
	if err := os.WriteFile(path, good.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ts, err := ReadSafetensors(path)
	if err != nil || len(ts["a"].Data) != 6 || ts["a"].Data[5] != 6 {
		t.Fatalf("%v %v", ts, err)
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

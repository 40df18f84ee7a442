package glove_test

import (
	"math"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory/glove"
)

func vec(t *testing.T, w string) []float32 {
	t.Helper()
	r, ok := glove.Rank(w)
	if !ok {
		t.Fatalf("%q is not in the table", w)
	}
	v := make([]float32, glove.Dim())
	glove.AddTo(v, r, 1)
	return v
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i] * b[i])
		aa += float64(a[i] * a[i])
		bb += float64(b[i] * b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

func TestTable(t *testing.T) {
	if glove.Dim() != 100 {
		t.Fatalf("dim %d", glove.Dim())
	}
	if r, _ := glove.Rank("the"); r != 0 {
		t.Fatalf("the: rank %d, want 0 (frequency order)", r)
	}
	for _, w := range []string{",", "The", "don't", ""} {
		if _, ok := glove.Rank(w); ok {
			t.Errorf("%q: only lowercase letters are kept", w)
		}
	}
	var norm float64
	for _, c := range glove.Common() {
		norm += float64(c * c)
	}
	if math.Abs(norm-1) > 1e-4 {
		t.Fatalf("common direction has length² %f", norm)
	}
}

// Meaning, not spelling: words used alike are nearer than words that
// merely look alike, after quantisation.
func TestNeighbours(t *testing.T) {
	for _, c := range []struct{ w, near, far string }{
		{"doctor", "physician", "doctrine"},
		{"salary", "wages", "salad"},
		{"car", "automobile", "cat"},
	} {
		near, far := cosine(vec(t, c.w), vec(t, c.near)), cosine(vec(t, c.w), vec(t, c.far))
		if near <= far || near < 0.5 {
			t.Errorf("%s: %s %.2f, %s %.2f", c.w, c.near, near, c.far, far)
		}
	}
	if glove.Frequency(0) <= glove.Frequency(1000) {
		t.Fatal("frequency must fall with rank")
	}
}

// Cosine reads the stored bytes and must agree with the vectors AddTo
// scales out of them.
func TestCosine(t *testing.T) {
	for _, p := range [][2]string{{"doctor", "physician"}, {"salary", "salad"}, {"car", "car"}, {"the", "zebra"}} {
		ra, _ := glove.Rank(p[0])
		rb, _ := glove.Rank(p[1])
		want := cosine(vec(t, p[0]), vec(t, p[1]))
		if got := glove.Cosine(ra, rb); math.Abs(got-want) > 1e-5 {
			t.Errorf("%s, %s: Cosine %.6f, the scaled vectors' %.6f", p[0], p[1], got, want)
		}
	}
	ra, _ := glove.Rank("doctor")
	rb, _ := glove.Rank("physician")
	if n := testing.AllocsPerRun(100, func() { glove.Cosine(ra, rb) }); n != 0 {
		t.Errorf("Cosine allocates %v times a call", n)
	}
}

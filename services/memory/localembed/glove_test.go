package localembed

import (
	"context"
	"math"
	"testing"
)

func TestGloveEmbedder(t *testing.T) {
	e := NewGloveEmbedder(0)
	texts := []string{
		"The physician raised my salary.", // 0
		"The doctor increased my pay.",    // 1: other words, same meaning
		"Physics class served a salad.",   // 2: like 0 in spelling only
		"The physican raised my salry.",   // 3: 0 misspelled
		"The physician raised my salary.", // 4: 0 again
		"",                                // 5
		"zxqv kalorentin",                 // 6: no word GloVe knows
	}
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if e.Model() != "hash-glove-v1-256" || len(vs[0]) != 256 {
		t.Fatalf("model %s dim %d", e.Model(), len(vs[0]))
	}
	for i, v := range vs {
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		if i != 5 && math.Abs(n-1) > 1e-4 {
			t.Errorf("text %d: length² %f, want 1", i, n)
		}
		if i == 5 && n != 0 {
			t.Error("empty text must embed to the zero vector")
		}
	}
	if d := dot(vs[0], vs[4]); d < 0.999 {
		t.Errorf("not deterministic: %f", d)
	}
	same, spelled := dot(vs[0], vs[1]), dot(vs[0], vs[2])
	if same <= spelled {
		t.Errorf("same meaning %.2f, similar spelling %.2f: meaning must win", same, spelled)
	}
	if typo := dot(vs[0], vs[3]); typo < 0.5 {
		t.Errorf("misspelling %.2f: the hash part must still catch it", typo)
	}
	// Compared with the plain hash embedder, meaning moved closer.
	h, _ := NewHashEmbedder(0).Embed(context.Background(), texts[:2])
	if same <= dot(h[0], h[1])+0.1 {
		t.Errorf("same meaning %.2f with GloVe, %.2f without", same, dot(h[0], h[1]))
	}
	if small := NewGloveEmbedder(50); small.Dim != 116 {
		t.Errorf("dim 50 became %d, want 116 (GloVe's 100 and 16 hashed)", small.Dim)
	}
}

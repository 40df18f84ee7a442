package localembed

import (
	"context"
	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
	"github.com/openhuman-go/openhuman-go/services/memory/vectorindex"
	"hash/fnv"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestHashEmbedder(t *testing.T) {
	e := NewHashEmbedder(0)
	vs, _ := e.Embed(context.Background(), []string{"PostgreSQL database", "postgress databse", "PostgreSQL database", "the weather in Lisbon", ""})
	if e.Model() != "hash-v1-256" || len(vs[0]) != 256 {
		t.Fatalf("model %s dim %d", e.Model(), len(vs[0]))
	}
	if d := dot(vs[0], vs[2]); d < 0.999 {
		t.Errorf("not deterministic: %f", d)
	}
	if near, far := dot(vs[0], vs[1]), dot(vs[0], vs[3]); near < 0.35 || far > 0.2 || near <= far {
		t.Errorf("misspelling %.2f, unrelated %.2f", near, far)
	}
	for _, x := range vs[4] {
		if x != 0 {
			t.Fatal("empty text must embed to the zero vector")
		}
	}
}

// The hash embedder's vectors are stored: a change to how they are computed
// must not change a single component. referenceEmbed is the embedder as
// first written, with hash/fnv and string building.
func TestHashEmbedderUnchanged(t *testing.T) {
	referenceEmbed := func(dim int, text string) []float32 {
		v := make([]float32, dim)
		add := func(feature string, weight float32) {
			f := fnv.New64a()
			f.Write([]byte(feature))
			sum := f.Sum64()
			idx := int(sum % uint64(dim))
			if sum>>63 == 1 {
				weight = -weight
			}
			v[idx] += weight
		}
		// Words as hash-v1 always split them: runs of letters and digits.
		for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if lexicon.Stopword(w) {
				continue
			}
			s := lexicon.Stem(w)
			add("w:"+s, 1)
			padded := []rune("^" + s + "$")
			for i := 0; i+3 <= len(padded); i++ {
				add("t:"+string(padded[i:i+3]), 0.5)
			}
		}
		return vectorindex.Normalize(v)
	}
	r := rand.New(rand.NewSource(14))
	texts := []string{"", "PostgreSQL database migrations", "Zürich café naïve résumé", "日本語のテキスト and ASCII",
		"emoji 🎉 party", "invalid \xff\xfe bytes", strings.Repeat("supercalifragilistic", 5) + " long word"}
	alphabet := []rune("abcdeéü日🎉 .,-_'x\xff")
	for range 300 {
		n := r.Intn(80)
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[r.Intn(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	for _, dim := range []int{256, 100} {
		e := &HashEmbedder{Dim: dim}
		for _, text := range texts {
			if got, want := e.embed(text), referenceEmbed(dim, text); !slices.Equal(got, want) {
				t.Fatalf("dim %d, text %q: the vector changed", dim, text)
			}
		}
	}
}

// With concepts, words that share a WordNet sense land near each other;
// without, only their spelling counts.
func TestHashEmbedderConcepts(t *testing.T) {
	with, without := &HashEmbedder{Dim: 256, Concepts: true}, NewHashEmbedder(0)
	if with.Model() == without.Model() {
		t.Fatalf("both are %s: their vectors must not mix", with.Model())
	}
	cos := func(e *HashEmbedder, a, b string) float32 { return dot(e.embed(a), e.embed(b)) }
	for _, c := range [][3]string{ // a question, its answer, and a text as near it in spelling
		{"which typefaces does the brand use", "the brand uses two fonts", "the brand uses two colours"},
		{"my automobile", "my car", "my autograph"},
		{"when does the meeting begin", "the meeting starts at nine", "the meeting ends at nine"},
		{"the children", "a child", "the chilled"},
	} {
		w := cos(with, c[0], c[1]) - cos(with, c[0], c[2])
		wo := cos(without, c[0], c[1]) - cos(without, c[0], c[2])
		if w <= 0 || w <= wo {
			t.Errorf("%q: answer ahead by %.2f with concepts, %.2f without", c[0], w, wo)
		}
	}
	// Unrelated texts stay apart.
	if c := cos(with, "my automobile", "the brand uses two fonts"); c > 0.2 {
		t.Errorf("unrelated texts at %.2f", c)
	}
	// Words WordNet does not know embed as without concepts.
	if a, b := with.embed("kubectl rollout"), without.embed("kubectl rollout"); !slices.Equal(a, b) {
		t.Error("unknown words got concept features")
	}
}

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// BenchmarkHashEmbed embeds English notes and code-like text with and
// without concepts: what concepts add to every write.
func BenchmarkHashEmbed(b *testing.B) {
	texts := map[string]string{
		"english": "The brand uses two fonts on the website; the children start school in September and Maya drives the car.",
		"code":    "func kalomiRen42(ctx context.Context, sadorVel string) error { return quberTin(ctx, sadorVel) }",
	}
	for _, name := range []string{"english", "code"} {
		for _, e := range []*HashEmbedder{{Dim: 256}, {Dim: 256, Concepts: true}} {
			b.Run(name+"/"+e.Model(), func(b *testing.B) {
				e.embed(texts[name]) // the table is read once, at first use
				for b.Loop() {
					e.embed(texts[name])
				}
			})
		}
	}
}

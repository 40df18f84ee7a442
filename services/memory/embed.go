package memory

import (
	"context"
	"strconv"
	"unicode/utf8"

	"github.com/openhuman-go/openhuman-go/services/memory/vectorindex"
)

// Embedder turns texts into vectors. Implementations return one unit-length
// vector per text, all of Dim() components, and *contract.Error values:
// UNAVAILABLE when the embedding service cannot be reached (the caller
// retries later), ENGINE when it answers nonsense.
type Embedder interface {
	// Model names the vector space. Vectors of different models never mix.
	Model() string
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// HashEmbedder is the built-in offline embedder: feature-hashed words and
// character trigrams. It is honest about what it is: it catches spelling
// and word-form similarity ("postgress", "deployments"), not meaning
// ("car" and "automobile" are strangers to it).
type HashEmbedder struct {
	Dim int
}

// NewHashEmbedder returns a hash embedder of dim components (default 256).
func NewHashEmbedder(dim int) *HashEmbedder {
	if dim <= 0 {
		dim = 256
	}
	return &HashEmbedder{Dim: dim}
}

// Model includes the dimension: a different size is a different space.
func (h *HashEmbedder) Model() string { return "hash-v1-" + strconv.Itoa(h.Dim) }

// Embed never fails and needs no network.
func (h *HashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = h.embed(t)
	}
	return out, nil
}

func (h *HashEmbedder) embed(text string) []float32 {
	v := make([]float32, h.Dim)
	add := func(sum uint64, weight float32) {
		idx := int(sum % uint64(h.Dim))
		if sum>>63 == 1 {
			weight = -weight
		}
		v[idx] += weight
	}
	var runes [64]rune
	for _, w := range words(text) {
		// Symbols are left out: vectors stored before they were words
		// must stay comparable with new ones.
		if stopwords[w] || isSymbol(w) {
			continue
		}
		s := stem(w)
		add(fnv1a(fnv1a(fnvOffset, "w:"), s), 1)
		// Trigrams of the word between ^ and $, over its runes (an invalid
		// byte counts as U+FFFD, as converting to []rune makes it).
		padded := append(runes[:0], '^')
		for _, r := range s {
			padded = append(padded, r)
		}
		padded = append(padded, '$')
		for i := 0; i+3 <= len(padded); i++ {
			sum := fnv1a(fnvOffset, "t:")
			for _, r := range padded[i : i+3] {
				var b [utf8.UTFMax]byte
				n := utf8.EncodeRune(b[:], r)
				for _, c := range b[:n] {
					sum = (sum ^ uint64(c)) * fnvPrime
				}
			}
			add(sum, 0.5)
		}
	}
	return Normalize(v)
}

// FNV-1a, 64 bits, as hash/fnv computes it, but over strings without
// copying them: embedding is a large part of storing an item.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnv1a(sum uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		sum = (sum ^ uint64(s[i])) * fnvPrime
	}
	return sum
}

// Normalize scales v to unit length in place (a zero vector stays zero) and
// returns it: embedders must return unit vectors, whatever a server sends.
func Normalize(v []float32) []float32 { return vectorindex.Normalize(v) }

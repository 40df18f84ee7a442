// Package localembed holds memory's built-in embedders, which need no
// service: the hash embedder (feature-hashed words and trigrams, with
// WordNet's concepts) and the GloVe embedder (word vectors shipped in the
// binary), beside the embedders of services (openai, ollama). The fusion
// weights and recall cosines they declare were set on the design half of
// the evaluation (services/memory/testdata/eval).
package localembed

import (
	"context"
	"strconv"
	"unicode/utf8"

	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
	"github.com/openhuman-go/openhuman-go/services/memory/vectorindex"
	"github.com/openhuman-go/openhuman-go/services/memory/wordnet"
)

// HashEmbedder is the built-in offline embedder: feature-hashed words and
// character trigrams, which catch spelling and word-form similarity
// ("postgress", "deployments"), and with Concepts, the words' meanings as
// WordNet lists them, so that "car" and "automobile", "fonts" and
// "typeface" land near each other. It knows no meaning WordNet does not:
// not jargon, names or phrases, nor that "pager" and "on call" go
// together.
type HashEmbedder struct {
	Dim int
	// Concepts adds each word's frequent WordNet senses and their
	// hypernyms as features, weighed by how rare the word is.
	Concepts bool
}

// NewHashEmbedder returns a hash embedder of dim components (default 256),
// without concepts: with today's fusion they make the vector leg better
// (recall@5 0.58 → 0.65 on the evaluation's design half) but not hybrid
// search, which weighs this embedder low, and they let memory.recall
// answer more questions it cannot know.
func NewHashEmbedder(dim int) *HashEmbedder {
	if dim <= 0 {
		dim = 256
	}
	return &HashEmbedder{Dim: dim}
}

// Model includes the dimension: a different size is a different space.
func (h *HashEmbedder) Model() string {
	if h.Concepts {
		return "hash-wordnet-v1-" + strconv.Itoa(h.Dim)
	}
	return "hash-v1-" + strconv.Itoa(h.Dim)
}

// concepts weighs the concept features: a word's senses together weigh
// weight, scaled by smooth inverse frequency (sif / (sif + frequency): a
// common word says less about what a text is about), and each sense's
// hypernyms hypernym times the sense.
var concepts = struct{ weight, hypernym, sif float32 }{weight: 1, hypernym: 0.5, sif: 1e-3}

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
	h.embedInto(v, text)
	return v
}

// embedInto writes the unit vector of text into v, of h.Dim zeros.
func (h *HashEmbedder) embedInto(v []float32, text string) {
	add := func(sum uint64, weight float32) {
		idx := int(sum % uint64(h.Dim))
		if sum>>63 == 1 {
			weight = -weight
		}
		v[idx] += weight
	}
	var runes [64]rune
	for _, w := range lexicon.Words(text) {
		// Symbols are left out: vectors stored before they were words
		// must stay comparable with new ones.
		if lexicon.Stopword(w) || lexicon.IsSymbol(w) {
			continue
		}
		s := lexicon.Stem(w)
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
		if h.Concepts {
			senses, freq := wordnet.Lookup(w)
			weight := concepts.weight * concepts.sif / (concepts.sif + float32(freq))
			for _, sense := range senses {
				sw := weight * sense.Weight
				add(conceptHash(sense.Synset), sw)
				for _, hyp := range wordnet.Hypernyms(sense.Synset) {
					add(conceptHash(hyp), sw*concepts.hypernym)
				}
			}
		}
	}
	vectorindex.Normalize(v)
}

// conceptHash is a WordNet synset's feature.
func conceptHash(synset int32) uint64 {
	sum := fnv1a(fnvOffset, "c:")
	for x := uint32(synset); ; x >>= 8 {
		sum = (sum ^ uint64(x&0xff)) * fnvPrime
		if x < 0x100 {
			return sum
		}
	}
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

// hashVectorWeight is the hash embedder's weight: its vectors catch typos
// and word forms, which the rerank's term match also forgives, and
// otherwise match on shared trigrams of unrelated words. Set on the design
// half of the evaluation (testdata/eval).
const hashVectorWeight = 0.3

// FusionWeight is low: the hash embedder is a spelling helper, not a
// model of meaning.
func (h *HashEmbedder) FusionWeight() float64 { return hashVectorWeight }

package localembed

import (
	"context"
	"strconv"

	"github.com/openhuman-go/openhuman-go/services/memory/glove"
	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
	"github.com/openhuman-go/openhuman-go/services/memory/vectorindex"
)

// GloveEmbedder is the default offline embedder: the hash embedder's
// vector (words and trigrams: typos, word forms) beside a sentence vector
// of GloVe word vectors (meaning: "physician" near "doctor", "salary"
// near "pay"), each part unit length and weighed, the whole normalised.
// A cosine between two such vectors is the weighed mean of the parts'
// cosines. The sentence vector is a smooth-inverse-frequency average
// (Arora et al., 2017: a frequent word says little of what a sentence is
// about) with the direction all sentences share removed.
//
// It knows meaning as news and Wikipedia use words, one word at a time:
// not what a phrase means ("on call"), nor jargon, names or acronyms it
// has not seen, and it holds opposites close.
type GloveEmbedder struct {
	// Dim is the whole vector's size; the hash part has what the GloVe
	// part (glove.Dim(), 100) leaves, so that a search costs what the
	// plain hash embedder's of the same size does.
	Dim  int
	hash HashEmbedder
}

// gloveParams are the embedder's weights, set on the design half of the
// evaluation (testdata/eval): the parts' weights (squared, their shares
// of a cosine), the SIF constant, and whether the common direction is
// removed.
var gloveParams = struct {
	hash, glove  float32
	sif          float64
	removeCommon bool
	recallCosine float64
}{hash: 1, glove: 1, sif: 3e-4, removeCommon: true, recallCosine: 0.6}

// NewGloveEmbedder returns a GloVe embedder of dim components in all
// (default 256; at least glove.Dim()+16, which a smaller dim becomes).
func NewGloveEmbedder(dim int) *GloveEmbedder {
	if dim <= 0 {
		dim = 256
	}
	dim = max(dim, glove.Dim()+16)
	return &GloveEmbedder{Dim: dim, hash: HashEmbedder{Dim: dim - glove.Dim()}}
}

// Model names the parts' sizes with the total.
func (g *GloveEmbedder) Model() string { return "hash-glove-v1-" + strconv.Itoa(g.Dim) }

// Embed never fails and needs no network.
func (g *GloveEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = g.embed(t)
	}
	return out, nil
}

func (g *GloveEmbedder) embed(text string) []float32 {
	gd := glove.Dim()
	v := make([]float32, g.hash.Dim+gd)
	g.hash.embedInto(v[:g.hash.Dim], text)
	for i := range v[:g.hash.Dim] {
		v[i] *= gloveParams.hash
	}
	sem := v[g.hash.Dim:]
	for _, w := range lexicon.Words(text) {
		if lexicon.Stopword(w) {
			continue
		}
		r, ok := glove.Rank(w)
		if !ok {
			continue
		}
		glove.AddTo(sem, r, float32(gloveParams.sif/(gloveParams.sif+glove.Frequency(r))))
	}
	if gloveParams.removeCommon {
		c := glove.Common()
		var dot float32
		for i, x := range sem {
			dot += x * c[i]
		}
		for i := range sem {
			sem[i] -= dot * c[i]
		}
	}
	vectorindex.Normalize(sem)
	for i := range sem {
		sem[i] *= gloveParams.glove
	}
	return vectorindex.Normalize(v)
}

// RecallMinCosine is higher than the hash embedder's: GloVe puts any two
// sentences of ordinary English nearer than trigrams do.
func (g *GloveEmbedder) RecallMinCosine() float64 { return gloveParams.recallCosine }

// gloveVectorWeight is the GloVe embedder's weight, set on the design
// half of the evaluation.
var gloveVectorWeight = 0.5

// FusionWeight is between the hash embedder's and a model's: its vectors
// know words' meanings, not sentences'.
func (g *GloveEmbedder) FusionWeight() float64 { return gloveVectorWeight }

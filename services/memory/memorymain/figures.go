package memorymain

import (
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// figures are what a model's vectors are worth: their weight in hybrid
// fusion against the keyword leg's 1, and the cosine from which recall
// quotes a note on its vector alone.
type figures struct {
	fusionWeight, recallMinCosine float64
}

// measured are the figures of the models measured on LoCoMo's design half
// (make eval-use-lite; docs/memory.md, "Embedders"), by model name under
// any provider. A model not listed weighs 1, with recall's cosine of 0.5,
// until the configuration says its own.
var measured = map[string]figures{
	// The Universal Sentence Encoder lite (scripts/use-lite): fusion
	// weights 0.25 to 2 read within 0.01 of each other on LoCoMo and 1
	// read best on the WordNet evaluation's design half; recall's cosine
	// 0.7 put the most questions right over both design halves (a right
	// note first, or "I don't know" where memory cannot answer).
	"use-lite": {fusionWeight: 1, recallMinCosine: 0.7},
}

// figured is an embedder with its figures: the configuration's, else the
// measured ones, else the embedder's own (the built-in ones say theirs);
// 0 when none says, and retrieval and recall take their defaults.
type figured struct {
	memory.Embedder
	figures
}

func withFigures(e memory.Embedder, c config.Embeddings) memory.Embedder {
	f := measured[c.Model]
	if c.FusionWeight > 0 {
		f.fusionWeight = c.FusionWeight
	}
	if c.RecallMinCosine > 0 {
		f.recallMinCosine = c.RecallMinCosine
	}
	if w, ok := e.(interface{ FusionWeight() float64 }); ok && f.fusionWeight == 0 {
		f.fusionWeight = w.FusionWeight()
	}
	if r, ok := e.(interface{ RecallMinCosine() float64 }); ok && f.recallMinCosine == 0 {
		f.recallMinCosine = r.RecallMinCosine()
	}
	return &figured{Embedder: e, figures: f}
}

// FusionWeight is read by retrieval's fusion (retrieval/vector.go).
func (f *figured) FusionWeight() float64 { return f.fusionWeight }

// RecallMinCosine is read by recall (recall.go).
func (f *figured) RecallMinCosine() float64 { return f.recallMinCosine }

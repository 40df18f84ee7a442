package bert

import (
	"fmt"
	"math"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// The published figures a loaded model must reproduce before it is used:
// weights that load but compute something else (a wrong file, a wrong
// revision, a bug here) are refused instead of quietly ranking badly.
var (
	// EmbedderFigures are the sentence-transformers quickstart's cosines
	// for all-MiniLM-L6-v2.
	EmbedderFigures = []PairFigure{
		{"The weather is lovely today.", "It's so sunny outside!", 0.6660},
		{"The weather is lovely today.", "He drove to the stadium.", 0.1046},
		{"It's so sunny outside!", "He drove to the stadium.", 0.1411},
	}
	// RerankerFigures are ms-marco-MiniLM-L6-v2's card's scores.
	RerankerFigures = []PairFigure{
		{"How many people live in Berlin?", "Berlin had a population of 3,520,031 registered inhabitants in an area of 891.82 square kilometers.", 8.607138},
		{"How many people live in Berlin?", "Berlin is well known for its museums.", -4.320078},
	}
)

// PairFigure is a published figure for two texts: a cosine of their
// embeddings, or a cross-encoder's score of the pair.
type PairFigure struct {
	A, B string
	Want float64
}

// The tolerances: the figures are printed to four digits, and a
// different but sound float order moves results by far less than these.
const (
	CosineTolerance = 0.01
	ScoreTolerance  = 0.05
)

// CheckEmbedder embeds the figures' sentences and compares their cosines.
// ENGINE, saying what was expected and what was found, when one is off.
func (e *Encoder) CheckEmbedder(figures []PairFigure) error {
	return check("sentence model", figures, CosineTolerance, func(f PairFigure) (float64, error) {
		a, err := e.Embed(f.A)
		if err != nil {
			return 0, err
		}
		b, err := e.Embed(f.B)
		if err != nil {
			return 0, err
		}
		return float64(dot(a, b)), nil
	})
}

// CheckReranker scores the figures' pairs and compares.
func (e *Encoder) CheckReranker(figures []PairFigure) error {
	return check("reranker", figures, ScoreTolerance, func(f PairFigure) (float64, error) {
		s, err := e.Score(f.A, f.B)
		return float64(s), err
	})
}

func check(what string, figures []PairFigure, tol float64, measure func(PairFigure) (float64, error)) error {
	var off []string
	for _, f := range figures {
		got, err := measure(f)
		if err != nil {
			return err
		}
		if math.Abs(got-f.Want) > tol || math.IsNaN(got) {
			off = append(off, fmt.Sprintf("%q / %q: expected %.4f ± %g, found %.4f", f.A, f.B, f.Want, tol, got))
		}
	}
	if len(off) > 0 {
		return contract.Errorf(contract.CodeEngine, "the %s failed its self-check against published figures: %s", what, strings.Join(off, "; "))
	}
	return nil
}

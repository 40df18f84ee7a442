package bert

import (
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// TestSelfCheckRefusesWrongModel: a model that loads but is not the
// published one (random weights) fails both checks, and the message says
// what was expected and what was found.
func TestSelfCheckRefusesWrongModel(t *testing.T) {
	e, _ := mustTestEncoder(t, 11, true)
	err := e.CheckEmbedder(EmbedderFigures)
	if contract.ErrorCode(err) != contract.CodeEngine || !strings.Contains(err.Error(), "expected 0.6660 ± 0.01, found ") {
		t.Errorf("embedder: %v", err)
	}
	err = e.CheckReranker(RerankerFigures)
	if contract.ErrorCode(err) != contract.CodeEngine || !strings.Contains(err.Error(), "expected 8.6071 ± 0.05, found ") {
		t.Errorf("reranker: %v", err)
	}
	t.Log(err)
}

// TestSelfCheckPassesOwnFigures: figures measured on a model pass on
// that model, and fail once one is moved past the tolerance.
func TestSelfCheckPassesOwnFigures(t *testing.T) {
	e, _ := mustTestEncoder(t, 11, true)
	var figs []PairFigure
	for _, f := range EmbedderFigures {
		a, _ := e.Embed(f.A)
		b, _ := e.Embed(f.B)
		figs = append(figs, PairFigure{f.A, f.B, float64(dot(a, b))})
	}
	if err := e.CheckEmbedder(figs); err != nil {
		t.Fatal(err)
	}
	figs[1].Want += 2 * CosineTolerance
	if err := e.CheckEmbedder(figs); err == nil {
		t.Fatal("a figure off by twice the tolerance passed")
	}
	e2, _ := mustTestEncoder(t, 11, false)
	if err := e2.CheckReranker(RerankerFigures); err == nil || !strings.Contains(err.Error(), "not a cross-encoder") {
		t.Fatalf("an embedder checked as a reranker: %v", err)
	}
}

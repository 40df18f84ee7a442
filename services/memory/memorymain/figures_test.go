package memorymain

import (
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/config"
)

type weighed interface {
	FusionWeight() float64
	RecallMinCosine() float64
}

// A model's figures come from the configuration, else from its
// measurement, else from the embedder itself; else they are 0, which
// retrieval and recall read as their defaults.
func TestEmbedderFigures(t *testing.T) {
	measuredUSE := measured["use-lite"]
	if measuredUSE.fusionWeight == 0 || measuredUSE.recallMinCosine == 0 {
		t.Fatal("use-lite has no measured figures")
	}
	for _, tc := range []struct {
		name           string
		c              config.Embeddings
		weight, cosine float64
	}{
		{"measured", config.Embeddings{Provider: "ollama", Model: "use-lite"}, measuredUSE.fusionWeight, measuredUSE.recallMinCosine},
		{"measured, under openai", config.Embeddings{Provider: "openai", Model: "use-lite"}, measuredUSE.fusionWeight, measuredUSE.recallMinCosine},
		{"configured", config.Embeddings{Provider: "ollama", Model: "use-lite", FusionWeight: 2.5, RecallMinCosine: 0.8}, 2.5, 0.8},
		{"unmeasured", config.Embeddings{Provider: "ollama", Model: "nomic-embed-text"}, 0, 0},
		{"unmeasured, configured", config.Embeddings{Provider: "openai", Model: "text-embedding-3-small", FusionWeight: 0.7}, 0.7, 0},
		{"built in", config.Embeddings{Provider: "hash-glove"}, 0.5, 0.6},
		{"built in, configured", config.Embeddings{Provider: "hash", FusionWeight: 0.9}, 0.9, 0},
		{"minilm with models off: hash-glove's", config.Embeddings{Provider: "minilm", Models: "off", Dim: 256}, 0.5, 0.6},
	} {
		e := Embedder(tc.c).(weighed)
		if e.FusionWeight() != tc.weight || e.RecallMinCosine() != tc.cosine {
			t.Errorf("%s: weight %g cosine %g, want %g %g", tc.name, e.FusionWeight(), e.RecallMinCosine(), tc.weight, tc.cosine)
		}
	}
}

// TestMinilmOffIsHashGlove: the minilm provider with models off is
// today's hash-glove, vector space included.
func TestMinilmOffIsHashGlove(t *testing.T) {
	c := config.Embeddings{Provider: "minilm", Models: "off", ModelsDir: t.TempDir(), Dim: 256}
	got := Embedder(c).Model()
	if want := Embedder(config.Embeddings{Provider: "hash-glove", Dim: 256}).Model(); got != want {
		t.Fatalf("model %s, want %s", got, want)
	}
}

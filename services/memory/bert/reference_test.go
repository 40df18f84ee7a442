package bert

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// mustTestEncoder writes a small random model (with a pooler and
// classifier when head is set) to a temporary directory and loads it.
func mustTestEncoder(tb testing.TB, seed uint64, head bool) (*Encoder, string) {
	tb.Helper()
	return mustEncoderOfShape(tb, testConfig(len(testVocab())), seed, head)
}

func mustEncoderOfShape(tb testing.TB, c Config, seed uint64, head bool) (*Encoder, string) {
	tb.Helper()
	dir := tb.TempDir()
	vocab := testVocab()
	writeModelDir(tb, dir, c, vocab, randomTensors(c, seed, head))
	e, err := Load(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return e, dir
}

// TestForwardMatchesONNXRuntime compares the forward pass with ONNX
// Runtime's on the same random model: the last hidden states, the mean
// pooled embeddings, and the cross-encoder's logits. ONNX Runtime runs the
// texts as one padded, masked batch, the Go side one at a time, so the
// comparison also shows that masked padding changes nothing.
func TestForwardMatchesONNXRuntime(t *testing.T) {
	tools := modelTools(t)
	small := testConfig(len(testVocab()))
	// MiniLM's width, so that the products split across cores.
	wide := small
	wide.Hidden, wide.Heads, wide.Intermediate = 384, 12, 1536
	for name, c := range map[string]Config{"small": small, "MiniLM's width": wide} {
		t.Run(name, func(t *testing.T) { compareWithORT(t, tools, c) })
	}
}

func compareWithORT(t *testing.T, tools string, c Config) {
	e, dir := mustEncoderOfShape(t, c, 7, true)
	model := filepath.Join(dir, "model.onnx")
	if err := os.WriteFile(model, exportONNX(e.Model), 0o644); err != nil {
		t.Fatal(err)
	}
	var batch []Encoding
	for _, c := range tokenizerCases[:14] {
		if c.b != "" {
			batch = append(batch, e.Tok.EncodePair(c.a, c.b, e.maxTokens()))
		} else {
			batch = append(batch, e.Tok.Encode(c.a, e.maxTokens()))
		}
	}
	var ref struct {
		Hidden     [][][]float64
		Embeddings [][]float64
		Logits     []float64
	}
	in := map[string]any{"model": model, "batch": encodingsJSON(batch)}
	runNode(t, tools, "ort.mjs", in, &ref)
	var worstHidden, worstEmbed, worstLogit float64
	for i, enc := range batch {
		x, err := e.Model.Forward(enc)
		if err != nil {
			t.Fatal(err)
		}
		h := e.Model.Hidden
		for j := range enc.IDs {
			worstHidden = max(worstHidden, maxDiff(x[j*h:(j+1)*h], ref.Hidden[i][j]))
		}
		worstEmbed = max(worstEmbed, maxDiff(meanPool(x, len(enc.IDs), h), ref.Embeddings[i]))
		logit := e.Model.score(x)
		worstLogit = max(worstLogit, math.Abs(float64(logit)-ref.Logits[i]))
	}
	t.Logf("largest differences from ONNX Runtime: hidden states %.2g, embeddings %.2g, logits %.2g", worstHidden, worstEmbed, worstLogit)
	if worstHidden > 1e-4 || worstEmbed > 1e-5 || worstLogit > 1e-4 {
		t.Errorf("outside tolerance: hidden %g (1e-4), embeddings %g (1e-5), logits %g (1e-4)", worstHidden, worstEmbed, worstLogit)
	}
}

func encodingsJSON(batch []Encoding) []map[string][]int32 {
	out := make([]map[string][]int32, len(batch))
	for i, e := range batch {
		out[i] = map[string][]int32{"ids": e.IDs, "types": e.Types}
	}
	return out
}

func maxDiff(a []float32, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var m float64
	for i := range a {
		m = max(m, math.Abs(float64(a[i])-b[i]))
	}
	return m
}

package bert

import (
	"math"
	"os"
	"path/filepath"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// The files a model directory holds, as the hub names them.
const (
	ConfigFile  = "config.json"
	VocabFile   = "vocab.txt"
	WeightsFile = "model.safetensors"
)

// DefaultMaxTokens is what sentence-transformers reads of a text for
// all-MiniLM-L6-v2, [CLS] and [SEP] included; the rest is not read.
const DefaultMaxTokens = 256

// Encoder is a tokenizer and a model, for embedding texts (Embed) or
// scoring pairs (Score). Safe for concurrent use.
type Encoder struct {
	Tok   *Tokenizer
	Model *Model
	// MaxTokens cuts longer inputs; at most the model's positions.
	MaxTokens int
}

// Load reads a model directory: config.json, vocab.txt and
// model.safetensors.
func Load(dir string) (*Encoder, error) {
	c, err := ReadConfig(filepath.Join(dir, ConfigFile))
	if err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(dir, VocabFile))
	if err != nil {
		return nil, contract.Errorf(contract.CodeEngine, "opening the model's vocabulary: %v", err)
	}
	tok, err := ReadVocab(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	if tok.Size() > c.VocabSize {
		return nil, contract.Errorf(contract.CodeEngine, "the vocabulary has %d tokens, the model %d", tok.Size(), c.VocabSize)
	}
	tensors, err := ReadSafetensors(filepath.Join(dir, WeightsFile))
	if err != nil {
		return nil, err
	}
	m, err := NewModel(c, tensors)
	if err != nil {
		return nil, err
	}
	return &Encoder{Tok: tok, Model: m, MaxTokens: min(DefaultMaxTokens, c.MaxPositions)}, nil
}

func (e *Encoder) maxTokens() int {
	if e.MaxTokens <= 0 || e.MaxTokens > e.Model.MaxPositions {
		return e.Model.MaxPositions
	}
	return e.MaxTokens
}

// Embed is text's sentence vector: the mean of the last hidden states over
// its tokens, unit length.
func (e *Encoder) Embed(text string) ([]float32, error) {
	enc := e.Tok.Encode(text, e.maxTokens())
	x, err := e.Model.Forward(enc)
	if err != nil {
		return nil, err
	}
	return meanPool(x, len(enc.IDs), e.Model.Hidden), nil
}

func meanPool(x []float32, n, h int) []float32 {
	out := make([]float32, h)
	for i := range n {
		axpy(1, x[i*h:(i+1)*h], out)
	}
	var norm float64
	for _, v := range out {
		norm += float64(v) * float64(v)
	}
	if norm == 0 {
		return out
	}
	inv := float32(1 / math.Sqrt(norm))
	for i := range out {
		out[i] *= inv
	}
	return out
}

// Score is a cross-encoder's relevance logit for a query and a passage:
// the classifier over the pooled [CLS] state of "[CLS] query [SEP]
// passage [SEP]". Higher is more relevant; it is not a probability.
func (e *Encoder) Score(query, passage string) (float32, error) {
	m := e.Model
	if m.pooler == nil || m.classifier == nil {
		return 0, contract.Errorf(contract.CodeEngine, "the model has no pooler and classifier: it is not a cross-encoder")
	}
	enc := e.Tok.EncodePair(query, passage, e.maxTokens())
	x, err := m.Forward(enc)
	if err != nil {
		return 0, err
	}
	return m.score(x), nil
}

// score is the classifier's first logit over the pooler's tanh of the
// [CLS] state, the first row of x.
func (m *Model) score(x []float32) float32 {
	pooled := make([]float32, m.Hidden)
	m.pooler.apply(x[:m.Hidden], pooled, 1)
	for i, v := range pooled {
		pooled[i] = float32(math.Tanh(float64(v)))
	}
	logits := make([]float32, m.classifier.out)
	m.classifier.apply(pooled, logits, 1)
	return logits[0]
}

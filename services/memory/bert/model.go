package bert

import (
	"fmt"
	"math"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// linear is y = x·Wᵀ + b with W as PyTorch stores it, [out, in].
type linear struct {
	w       []float32
	b       []float32
	in, out int
}

type layerNorm struct{ g, b []float32 }

type layer struct {
	q, k, v, attnOut linear
	attnNorm         layerNorm
	up, down         linear
	outNorm          layerNorm
}

// Model is a BERT encoder's weights, with the pooler and a classifier when
// the checkpoint has them. Its methods are safe for concurrent use.
type Model struct {
	Config
	word, pos, typ []float32
	embNorm        layerNorm
	layers         []layer
	pooler         *linear
	classifier     *linear
}

// NewModel takes its weights from tensors named as Hugging Face's BERT
// checkpoints name them, with or without the "bert." prefix.
func NewModel(c Config, tensors map[string]Tensor) (*Model, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	w := weights{t: tensors}
	h := c.Hidden
	m := &Model{Config: c}
	m.word = w.get("embeddings.word_embeddings.weight", c.VocabSize, h)
	m.pos = w.get("embeddings.position_embeddings.weight", c.MaxPositions, h)
	m.typ = w.get("embeddings.token_type_embeddings.weight", c.TypeVocabSize, h)
	m.embNorm = w.norm("embeddings.LayerNorm", h)
	for i := range c.Layers {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		m.layers = append(m.layers, layer{
			q:        w.linear(p+"attention.self.query", h, h),
			k:        w.linear(p+"attention.self.key", h, h),
			v:        w.linear(p+"attention.self.value", h, h),
			attnOut:  w.linear(p+"attention.output.dense", h, h),
			attnNorm: w.norm(p+"attention.output.LayerNorm", h),
			up:       w.linear(p+"intermediate.dense", h, c.Intermediate),
			down:     w.linear(p+"output.dense", c.Intermediate, h),
			outNorm:  w.norm(p+"output.LayerNorm", h),
		})
	}
	if w.has("pooler.dense.weight") {
		p := w.linear("pooler.dense", h, h)
		m.pooler = &p
	}
	if w.has("classifier.weight") {
		out := 1
		if t, ok := w.find("classifier.weight"); ok && len(t.Shape) == 2 {
			out = t.Shape[0]
		}
		cl := w.linear("classifier", h, out)
		m.classifier = &cl
	}
	if len(w.errs) > 0 {
		return nil, contract.Errorf(contract.CodeEngine, "the model's weights do not match its config: %s", strings.Join(w.errs, "; "))
	}
	return m, nil
}

// weights looks tensors up by name, collecting what is missing or misshapen.
type weights struct {
	t    map[string]Tensor
	errs []string
}

func (w *weights) find(name string) (Tensor, bool) {
	if t, ok := w.t[name]; ok {
		return t, true
	}
	t, ok := w.t["bert."+name]
	return t, ok
}

func (w *weights) has(name string) bool { _, ok := w.find(name); return ok }

// get returns the named tensor's data, checking it holds rows×cols values.
func (w *weights) get(name string, rows, cols int) []float32 {
	t, ok := w.find(name)
	if !ok && strings.HasSuffix(name, "LayerNorm.weight") {
		t, ok = w.find(strings.TrimSuffix(name, "weight") + "gamma")
	}
	if !ok && strings.HasSuffix(name, "LayerNorm.bias") {
		t, ok = w.find(strings.TrimSuffix(name, "bias") + "beta")
	}
	switch {
	case !ok:
		w.errs = append(w.errs, name+" is missing")
	case len(t.Data) != rows*cols:
		w.errs = append(w.errs, fmt.Sprintf("%s has shape %v, not [%d %d]", name, t.Shape, rows, cols))
	default:
		return t.Data
	}
	return make([]float32, rows*cols)
}

func (w *weights) linear(name string, in, out int) linear {
	return linear{w: w.get(name+".weight", out, in), b: w.get(name+".bias", out, 1), in: in, out: out}
}

func (w *weights) norm(name string, n int) layerNorm {
	return layerNorm{g: w.get(name+".weight", n, 1), b: w.get(name+".bias", n, 1)}
}

// Forward returns the last hidden states of one sequence, [len(ids),
// Hidden] row-major. One sequence needs no attention mask: there is no
// padding, and padding is all a mask hides in a batch.
func (m *Model) Forward(e Encoding) ([]float32, error) {
	n, h := len(e.IDs), m.Hidden
	if n == 0 || n > m.MaxPositions {
		return nil, contract.Errorf(contract.CodeInvalidRequest, "a sequence of %d tokens (1 to %d)", n, m.MaxPositions)
	}
	x := make([]float32, n*h)
	for i, id := range e.IDs {
		tt := int32(0)
		if i < len(e.Types) {
			tt = e.Types[i]
		}
		if id < 0 || int(id) >= m.VocabSize || tt < 0 || int(tt) >= m.TypeVocabSize {
			return nil, contract.Errorf(contract.CodeInvalidRequest, "token %d (type %d) is outside the model's vocabulary", id, tt)
		}
		row := x[i*h : (i+1)*h]
		for j := range row {
			row[j] = m.word[int(id)*h+j] + m.pos[i*h+j] + m.typ[int(tt)*h+j]
		}
	}
	m.embNorm.apply(x, h, m.LayerNormEps)
	s := newScratch(n, m.Config)
	for i := range m.layers {
		m.layers[i].forward(x, n, m.Config, s)
	}
	return x, nil
}

// scratch holds one forward pass's intermediate buffers.
type scratch struct {
	q, k, v, ctx, attn, up []float32
	heads                  []headScratch // one per worker
}

func newScratch(n int, c Config) *scratch {
	h := c.Hidden
	s := &scratch{
		q: make([]float32, n*h), k: make([]float32, n*h), v: make([]float32, n*h),
		ctx: make([]float32, n*h), attn: make([]float32, n*h),
		up: make([]float32, n*c.Intermediate),
	}
	for range min(workers(), c.Heads) {
		s.heads = append(s.heads, newHeadScratch(n, h/c.Heads))
	}
	return s
}

// forward replaces x with the layer's output: self-attention, residual and
// LayerNorm, then the GELU feed-forward, residual and LayerNorm.
func (l *layer) forward(x []float32, n int, c Config, s *scratch) {
	h := c.Hidden
	l.q.apply(x, s.q, n)
	l.k.apply(x, s.k, n)
	l.v.apply(x, s.v, n)
	attention(s, n, h, c.Heads)
	l.attnOut.apply(s.ctx, s.attn, n)
	for i := range x {
		x[i] += s.attn[i]
	}
	l.attnNorm.apply(x, h, c.LayerNormEps)
	l.up.apply(x, s.up, n)
	parallel(len(s.up), 1<<14, func(lo, hi int) {
		for i, v := range s.up[lo:hi] {
			s.up[lo+i] = gelu(v)
		}
	})
	l.down.apply(s.up, s.attn, n)
	for i := range x {
		x[i] += s.attn[i]
	}
	l.outNorm.apply(x, h, c.LayerNormEps)
}

// gelu is GELU in its erf form, x·½·(1 + erf(x/√2)), as BERT's
// "gelu" is (not the tanh approximation).
func gelu(x float32) float32 {
	return 0.5 * x * (1 + erf32(x*(1/math.Sqrt2)))
}

// erf32 is erf in float32 as a rational function of x², x clamped to ±4
// (where erf is 1 to float32's precision): the approximation Eigen and XLA
// use for float erf, within 5e-7 of math.Erf (TestErf32), several times
// faster, and GELU is a quarter of a short sentence's time with math.Erf.
func erf32(x float32) float32 {
	x = min(max(x, -4), 4)
	x2 := x * x
	p := x2*-2.72614225801306e-10 + 2.77068142495902e-08
	p = x2*p + -2.10102402082508e-06
	p = x2*p + -5.69250639462346e-05
	p = x2*p + -7.34990630326855e-04
	p = x2*p + -2.95459980854025e-03
	p = x2*p + -1.60960333262415e-02
	q := x2*-1.45660718464996e-05 + -2.13374055278905e-04
	q = x2*q + -1.68282697438203e-03
	q = x2*q + -7.37332916720468e-03
	q = x2*q + -1.42647390514189e-02
	return x * p / q
}

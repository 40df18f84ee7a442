package bert

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// RandomTensors are a model of shape c with random weights, with a pooler
// and a one-logit classifier when head is set. LayerNorm scales sit near
// one, as trained ones do. For tests of what loads a model, and for
// benchmarks: speed does not depend on the weights.
func RandomTensors(c Config, seed uint64, head bool) map[string]Tensor {
	r := rand.New(rand.NewPCG(seed, 1))
	rnd := func(scale float32, base float32, shape ...int) Tensor {
		n := 1
		for _, d := range shape {
			n *= d
		}
		t := Tensor{Shape: shape, Data: make([]float32, n)}
		for i := range t.Data {
			t.Data[i] = base + scale*float32(r.NormFloat64())
		}
		return t
	}
	h, in := c.Hidden, c.Intermediate
	ts := map[string]Tensor{
		"embeddings.word_embeddings.weight":       rnd(0.5, 0, c.VocabSize, h),
		"embeddings.position_embeddings.weight":   rnd(0.5, 0, c.MaxPositions, h),
		"embeddings.token_type_embeddings.weight": rnd(0.5, 0, c.TypeVocabSize, h),
		"embeddings.LayerNorm.weight":             rnd(0.1, 1, h),
		"embeddings.LayerNorm.bias":               rnd(0.1, 0, h),
	}
	lin := func(name string, inDim, outDim int) {
		// Scaled as trained layers are, keeping activations near one
		// whatever the width.
		ts[name+".weight"] = rnd(float32(2/math.Sqrt(float64(inDim))), 0, outDim, inDim)
		ts[name+".bias"] = rnd(0.1, 0, outDim)
	}
	for i := range c.Layers {
		p := "encoder.layer." + strconv.Itoa(i) + "."
		lin(p+"attention.self.query", h, h)
		lin(p+"attention.self.key", h, h)
		lin(p+"attention.self.value", h, h)
		lin(p+"attention.output.dense", h, h)
		lin(p+"intermediate.dense", h, in)
		lin(p+"output.dense", in, h)
		for _, n := range []string{"attention.output.LayerNorm", "output.LayerNorm"} {
			ts[p+n+".weight"] = rnd(0.1, 1, h)
			ts[p+n+".bias"] = rnd(0.1, 0, h)
		}
	}
	if head {
		lin("pooler.dense", h, h)
		lin("classifier", h, 1)
	}
	return ts
}

// ModelFiles are the files of a model directory as the hub serves them
// (config.json, vocab.txt, model.safetensors), for c, vocab and tensors.
func ModelFiles(c Config, vocab []string, tensors map[string]Tensor) (map[string][]byte, error) {
	cj, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	var w bytes.Buffer
	if err := WriteSafetensors(&w, tensors); err != nil {
		return nil, err
	}
	return map[string][]byte{
		ConfigFile:  cj,
		VocabFile:   []byte(strings.Join(vocab, "\n") + "\n"),
		WeightsFile: w.Bytes(),
	}, nil
}

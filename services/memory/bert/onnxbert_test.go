package bert

import (
	"math"
)

// exportONNX writes m as an ONNX model with inputs input_ids,
// token_type_ids, position_ids and attention_mask ([batch, seq], int64)
// and outputs last_hidden_state [batch, seq, hidden] and, when m has a
// classifier, logits [batch, labels]. Padding is masked as Hugging Face's
// BERT masks it: a large negative number added to the scores of padded
// keys.
func exportONNX(m *Model) []byte {
	g := &onnxGraph{}
	c := m.Config
	h, d := c.Hidden, c.Hidden/c.Heads
	emb := g.op("Add", []string{
		g.op("Add", []string{
			g.op("Gather", []string{g.floats(m.word, c.VocabSize, h), "input_ids"}),
			g.op("Gather", []string{g.floats(m.pos, c.MaxPositions, h), "position_ids"}),
		}),
		g.op("Gather", []string{g.floats(m.typ, c.TypeVocabSize, h), "token_type_ids"}),
	})
	x := g.norm(emb, m.embNorm, c.LayerNormEps)
	// (1 - mask) · -1e4, as [batch, 1, 1, seq].
	mask := g.op("Cast", []string{"attention_mask"}, intAttr("to", 1))
	bias := g.op("Mul", []string{g.op("Sub", []string{g.floats([]float32{1}), mask}), g.floats([]float32{-1e4})})
	bias = g.op("Unsqueeze", []string{bias, g.ints([]int64{1, 2}, 2)})
	heads := g.ints([]int64{0, 0, int64(c.Heads), int64(d)}, 4)
	merge := g.ints([]int64{0, 0, int64(h)}, 3)
	for _, l := range m.layers {
		split := func(lin linear, perm ...int64) string {
			r := g.op("Reshape", []string{g.dense(x, lin), heads})
			return g.op("Transpose", []string{r}, attr{name: "perm", ints: perm})
		}
		q, k, v := split(l.q, 0, 2, 1, 3), split(l.k, 0, 2, 3, 1), split(l.v, 0, 2, 1, 3)
		scores := g.op("Div", []string{g.op("MatMul", []string{q, k}), g.floats([]float32{float32(math.Sqrt(float64(d)))})})
		probs := g.op("Softmax", []string{g.op("Add", []string{scores, bias})}, intAttr("axis", -1))
		ctx := g.op("Transpose", []string{g.op("MatMul", []string{probs, v})}, attr{name: "perm", ints: []int64{0, 2, 1, 3}})
		ctx = g.op("Reshape", []string{ctx, merge})
		x = g.norm(g.op("Add", []string{g.dense(ctx, l.attnOut), x}), l.attnNorm, c.LayerNormEps)
		up := g.dense(x, l.up)
		// GELU, erf form: x · ½ · (1 + erf(x/√2)).
		erf := g.op("Erf", []string{g.op("Div", []string{up, g.floats([]float32{math.Sqrt2})})})
		act := g.op("Mul", []string{g.op("Mul", []string{up, g.floats([]float32{0.5})}), g.op("Add", []string{erf, g.floats([]float32{1})})})
		x = g.norm(g.op("Add", []string{g.dense(act, l.down), x}), l.outNorm, c.LayerNormEps)
	}
	outputs := []pb{valueInfo("last_hidden_state", 1, "batch", "seq", "hidden")}
	g.nodes = append(g.nodes, pb(nil).str(1, x).str(2, "last_hidden_state").str(3, "out").str(4, "Identity"))
	if m.pooler != nil && m.classifier != nil {
		first := g.op("Gather", []string{x, g.ints([]int64{0})}, intAttr("axis", 1))
		pooled := g.op("Tanh", []string{g.dense(first, *m.pooler)})
		logits := g.dense(pooled, *m.classifier)
		g.nodes = append(g.nodes, pb(nil).str(1, logits).str(2, "logits").str(3, "logits").str(4, "Identity"))
		outputs = append(outputs, valueInfo("logits", 1, "batch", "labels"))
	}
	var graph pb
	for _, n := range g.nodes {
		graph = graph.bytes(1, n)
	}
	graph = graph.str(2, "bert")
	for _, t := range g.inits {
		graph = graph.bytes(5, t)
	}
	for _, in := range []string{"input_ids", "token_type_ids", "position_ids", "attention_mask"} {
		graph = graph.bytes(11, valueInfo(in, 7, "batch", "seq"))
	}
	for _, o := range outputs {
		graph = graph.bytes(12, o)
	}
	opset := pb(nil).str(1, "").varint(2, 17)
	return pb(nil).varint(1, 8).str(2, "openhuman-test").bytes(7, graph).bytes(8, opset)
}

package bert

import (
	"encoding/binary"
	"math"
	"strconv"
)

// This file writes a BERT of the package's shape as an ONNX graph of
// standard operators (opset 17), so that ONNX Runtime can compute the
// reference: the protobuf is written by hand, field by field, to need no
// generated code. Field numbers are onnx.proto's.

type pb []byte

func (p pb) varint(field int, v uint64) pb {
	return binary.AppendUvarint(binary.AppendUvarint(p, uint64(field)<<3), v)
}

func (p pb) bytes(field int, b []byte) pb {
	p = binary.AppendUvarint(p, uint64(field)<<3|2)
	return append(binary.AppendUvarint(p, uint64(len(b))), b...)
}

func (p pb) str(field int, s string) pb { return p.bytes(field, []byte(s)) }

// onnxGraph collects nodes, initializers and the names it made up.
type onnxGraph struct {
	nodes, inits []pb
	n            int
}

func (g *onnxGraph) name(prefix string) string {
	g.n++
	return prefix + "_" + strconv.Itoa(g.n)
}

// attr is an ONNX attribute: int (type 2), float (1) or ints (7).
type attr struct {
	name string
	i    *int64
	f    *float32
	ints []int64
}

func intAttr(name string, v int64) attr     { return attr{name: name, i: &v} }
func floatAttr(name string, v float32) attr { return attr{name: name, f: &v} }

// op adds a node and returns its one output's name.
func (g *onnxGraph) op(typ string, inputs []string, attrs ...attr) string {
	out := g.name(typ)
	var n pb
	for _, in := range inputs {
		n = n.str(1, in)
	}
	n = n.str(2, out).str(3, out).str(4, typ)
	for _, a := range attrs {
		var ap pb
		ap = ap.str(1, a.name)
		switch {
		case a.i != nil:
			ap = ap.varint(3, uint64(*a.i)).varint(20, 2)
		case a.f != nil:
			ap = binary.LittleEndian.AppendUint32(binary.AppendUvarint(ap, 2<<3|5), math.Float32bits(*a.f))
			ap = ap.varint(20, 1)
		default:
			var packed []byte
			for _, v := range a.ints {
				packed = binary.AppendUvarint(packed, uint64(v))
			}
			ap = ap.bytes(8, packed).varint(20, 7)
		}
		n = n.bytes(5, ap)
	}
	g.nodes = append(g.nodes, n)
	return out
}

// floats adds a float32 initializer.
func (g *onnxGraph) floats(data []float32, dims ...int) string {
	name := g.name("w")
	t := tensorHeader(name, 1, dims)
	raw := make([]byte, 0, 4*len(data))
	for _, v := range data {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
	}
	g.inits = append(g.inits, t.bytes(9, raw))
	return name
}

// ints adds an int64 initializer.
func (g *onnxGraph) ints(data []int64, dims ...int) string {
	name := g.name("i")
	t := tensorHeader(name, 7, dims)
	raw := make([]byte, 0, 8*len(data))
	for _, v := range data {
		raw = binary.LittleEndian.AppendUint64(raw, uint64(v))
	}
	g.inits = append(g.inits, t.bytes(9, raw))
	return name
}

func tensorHeader(name string, dtype int, dims []int) pb {
	var t pb
	for _, d := range dims {
		t = t.varint(1, uint64(d))
	}
	return t.varint(2, uint64(dtype)).str(8, name)
}

// valueInfo declares a graph input or output of element type dtype and
// symbolic dimensions.
func valueInfo(name string, dtype int, dims ...string) pb {
	var shape pb
	for _, d := range dims {
		shape = shape.bytes(1, pb(nil).str(2, d))
	}
	tt := pb(nil).varint(1, uint64(dtype)).bytes(2, shape)
	return pb(nil).str(1, name).bytes(2, pb(nil).bytes(1, tt))
}

// transposed is W [out, in] as [in, out], for MatMul's x·W.
func transposed(w []float32, out, in int) []float32 {
	t := make([]float32, len(w))
	for o := range out {
		for i := range in {
			t[i*out+o] = w[o*in+i]
		}
	}
	return t
}

func (g *onnxGraph) dense(x string, l linear) string {
	w := g.floats(transposed(l.w, l.out, l.in), l.in, l.out)
	return g.op("Add", []string{g.op("MatMul", []string{x, w}), g.floats(l.b, l.out)})
}

func (g *onnxGraph) norm(x string, ln layerNorm, eps float64) string {
	s, b := g.floats(ln.g, len(ln.g)), g.floats(ln.b, len(ln.b))
	return g.op("LayerNormalization", []string{x, s, b}, intAttr("axis", -1), floatAttr("epsilon", float32(eps)))
}

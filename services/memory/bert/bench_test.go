package bert

import (
	"strconv"
	"strings"
	"testing"
)

// miniLMShape is all-MiniLM-L6-v2's shape (its vocabulary aside, which
// costs memory, not time).
func miniLMShape() Config {
	c := testConfig(len(testVocab()))
	c.Layers, c.Hidden, c.Heads, c.Intermediate, c.MaxPositions = 6, 384, 12, 1536, 512
	return c
}

func benchEncoder(b *testing.B, head bool) *Encoder {
	b.Helper()
	c := miniLMShape()
	m, err := NewModel(c, randomTensors(c, 3, head))
	if err != nil {
		b.Fatal(err)
	}
	return &Encoder{Tok: mustTestTokenizer(b), Model: m, MaxTokens: 512}
}

// tokens is a sequence of n ids of the test vocabulary, [CLS] and [SEP]
// included.
func tokens(e *Encoder, n int) Encoding {
	enc := e.Tok.Encode(strings.Repeat("memory ", n), n)
	if len(enc.IDs) != n {
		panic("short sequence")
	}
	return enc
}

// BenchmarkEmbed is one sentence's forward pass and pooling; sentences/s
// is 1e9 / ns/op.
func BenchmarkEmbed(b *testing.B) {
	e := benchEncoder(b, false)
	for _, n := range []int{16, 128} {
		b.Run(strconv.Itoa(n)+"tokens", func(b *testing.B) {
			enc := tokens(e, n)
			for b.Loop() {
				x, err := e.Model.Forward(enc)
				if err != nil {
					b.Fatal(err)
				}
				meanPool(x, n, e.Model.Hidden)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sentences/s")
		})
	}
}

// BenchmarkQuery is a twelve-word question embedded from its text, as a
// search does it: the latency a query adds.
func BenchmarkQuery(b *testing.B) {
	e := benchEncoder(b, false)
	q := "what did we decide about the project deadline in the friday meeting"
	for b.Loop() {
		if _, err := e.Embed(q); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(e.Tok.Encode(q, 512).IDs)), "tokens")
}

// BenchmarkRerank scores a twelve-word question against a passage of
// about a hundred words (128 tokens in all); pairs/s is 1e9 / ns/op.
func BenchmarkRerank(b *testing.B) {
	e := benchEncoder(b, true)
	q := "what did we decide about the project deadline in the friday meeting"
	p := strings.Repeat("the meeting notes say the project deadline is friday and ", 10)
	e.MaxTokens = 128
	for b.Loop() {
		if _, err := e.Score(q, p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
}

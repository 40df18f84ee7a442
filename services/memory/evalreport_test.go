package memory_test

import (
	"fmt"
	"math"
	"strings"
)

// evalModes are the fetch modes measured; "default" leaves mode out.
var evalModes = []string{"default", "keyword", "vector"}

// evalScore sums one group's figures.
type evalScore struct {
	n                 int
	hits5, rr, ndcg10 float64
}

func (s *evalScore) add(ranks []int, want int) {
	s.n++
	first := math.MaxInt
	dcg := 0.0
	for _, r := range ranks {
		first = min(first, r)
		if r <= 10 {
			dcg += 1 / math.Log2(float64(r)+1)
		}
	}
	if first <= 5 {
		s.hits5++
	}
	if first <= 10 {
		s.rr += 1 / float64(first)
	}
	ideal := 0.0
	for i := 1; i <= min(want, 10); i++ {
		ideal += 1 / math.Log2(float64(i)+1)
	}
	s.ndcg10 += dcg / ideal
}

func (s evalScore) recall5() float64 { return s.hits5 / float64(max(s.n, 1)) }
func (s evalScore) mrr() float64     { return s.rr / float64(max(s.n, 1)) }
func (s evalScore) ndcg() float64    { return s.ndcg10 / float64(max(s.n, 1)) }

// recallScore is memory.recall's figures on one half.
type recallScore struct {
	answerable, firstRight, falseIDK, unanswerable, idk int
}

// evalReport holds every figure, by half ("design", "held-out"), mode and
// question type ("all" for every answerable question).
type evalReport struct {
	items    int
	embedder string // the model name, as memory.status gives it
	builtin  bool   // the default offline embedder: the targets apply
	fetch    map[string]map[string]map[string]*evalScore
	recall   map[string]*recallScore
	misses   []string
}

var evalHalves = []string{"held-out", "design"}

func half(q evalQuestion) string {
	if q.heldOut() {
		return "held-out"
	}
	return "design"
}

var evalTypes = []string{"all", "plain", "paraphrase", "synonym", "abbreviation", "typo", "current"}

// table prints every figure as Markdown.
func (rep *evalReport) table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d items in memory, embedder %s\n", rep.items, rep.embedder)
	for _, h := range evalHalves {
		fmt.Fprintf(&b, "\n%s half: memory.fetch, recall@5 / MRR / nDCG@10\n\n", h)
		fmt.Fprintf(&b, "| type | n |")
		for _, m := range evalModes {
			fmt.Fprintf(&b, " %s |", m)
		}
		fmt.Fprintf(&b, "\n| --- | ---: |%s\n", strings.Repeat(" ---: |", len(evalModes)))
		for _, typ := range evalTypes {
			s := rep.fetch[h]["default"][typ]
			if s == nil {
				continue
			}
			fmt.Fprintf(&b, "| %s | %d |", typ, s.n)
			for _, m := range evalModes {
				s := rep.fetch[h][m][typ]
				fmt.Fprintf(&b, " %.2f / %.2f / %.2f |", s.recall5(), s.mrr(), s.ndcg())
			}
			b.WriteString("\n")
		}
		rs := rep.recall[h]
		fmt.Fprintf(&b, "\n%s half: memory.recall: first citation right %d/%d (%.2f), false \"I don't know\" %d/%d (%.2f); \"I don't know\" on unanswerable %d/%d (%.2f)\n",
			h, rs.firstRight, rs.answerable, ratio(rs.firstRight, rs.answerable), rs.falseIDK, rs.answerable, ratio(rs.falseIDK, rs.answerable),
			rs.idk, rs.unanswerable, ratio(rs.idk, rs.unanswerable))
	}
	return b.String()
}

func ratio(a, b int) float64 { return float64(a) / float64(max(b, 1)) }

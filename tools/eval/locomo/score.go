package locomo

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Score sums what the questions of one category (or all) got.
type Score struct {
	N        int     // questions scored
	Recall5  float64 // sum of each question's share of its evidence in the first 5 hits
	Recall10 float64
	NDCG10   float64
	First    int // questions whose first hit holds an evidence turn
	Cited    int // questions whose recall answer cites an evidence turn first
	Asked    int // questions recall was asked
	// TopEvidence counts questions whose hybrid fetch's first hit is
	// evidence; Followed, those of them whose recall cites that hit first.
	TopEvidence, Followed int
}

// Add scores one question's ranked hits, each the dia ids of the turns the
// hit holds (a stored text said twice holds both turns), against its evidence.
func (s *Score) Add(hits [][]string, evidence []string) {
	if len(evidence) == 0 {
		return
	}
	s.N++
	s.Recall5 += share(hits, evidence, 5)
	s.Recall10 += share(hits, evidence, 10)
	s.NDCG10 += ndcg(hits, evidence, 10)
	if share(hits, evidence, 1) > 0 {
		s.First++
	}
}

// AddCitation counts recall's first citation (nil when it cited none).
// followed says whether it is fetch's first hit, topEvidence whether that
// hit is evidence.
func (s *Score) AddCitation(first []string, evidence []string, topEvidence, followed bool) {
	s.Asked++
	if topEvidence {
		s.TopEvidence++
		if followed {
			s.Followed++
		}
	}
	for _, id := range first {
		if slices.Contains(evidence, id) {
			s.Cited++
			return
		}
	}
}

// share is the paper's recall accuracy at k: the share of a question's
// evidence turns found among the first k hits.
func share(hits [][]string, evidence []string, k int) float64 {
	found := 0
	for _, e := range evidence {
		for _, h := range hits[:min(k, len(hits))] {
			if slices.Contains(h, e) {
				found++
				break
			}
		}
	}
	return float64(found) / float64(len(evidence))
}

// ndcg is binary-relevance nDCG at k; a hit counts once however many
// evidence turns it holds, and each evidence turn counts once.
func ndcg(hits [][]string, evidence []string, k int) float64 {
	seen := map[string]bool{}
	dcg := 0.0
	for i, h := range hits[:min(k, len(hits))] {
		rel := false
		for _, id := range h {
			if slices.Contains(evidence, id) && !seen[id] {
				seen[id], rel = true, true
			}
		}
		if rel {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	ideal := 0.0
	for i := range min(k, len(evidence)) {
		ideal += 1 / math.Log2(float64(i+2))
	}
	return dcg / ideal
}

func (s Score) avg(v float64) float64 { return v / float64(max(s.N, 1)) }

// Report gathers scores by half, way of loading, mode and category.
type Report struct {
	scores    map[string]*Score // key: half|load|mode|category
	latencies map[string][]time.Duration
	// IDK counts recall's "I don't know" on the adversarial questions, by half and load.
	IDK, Adversarial map[string]int
}

// NewReport returns an empty report.
func NewReport() *Report {
	return &Report{scores: map[string]*Score{}, latencies: map[string][]time.Duration{},
		IDK: map[string]int{}, Adversarial: map[string]int{}}
}

// At returns the score of one cell, category "all" included.
func (r *Report) At(half, load, mode, category string) *Score {
	k := half + "|" + load + "|" + mode + "|" + category
	if r.scores[k] == nil {
		r.scores[k] = &Score{}
	}
	return r.scores[k]
}

// Latency records one fetch's time for a mode.
func (r *Report) Latency(mode string, d time.Duration) {
	r.latencies[mode] = append(r.latencies[mode], d)
}

// P50 is the median fetch time of a mode.
func (r *Report) P50(mode string) time.Duration {
	l := slices.Clone(r.latencies[mode])
	if len(l) == 0 {
		return 0
	}
	slices.Sort(l)
	return l[len(l)/2]
}

// Table prints the figures of one half: a row per way of loading, mode and
// category.
func (r *Report) Table(half string) string {
	var keys []string
	for k := range r.scores {
		if strings.HasPrefix(k, half+"|") {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return rowOrder(keys[i]) < rowOrder(keys[j]) })
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s %-8s %-12s %5s %8s %9s %8s %7s %16s %8s\n", "load", "mode", "category", "n", "recall@5", "recall@10", "nDCG@10", "first", "first cited", "follows")
	for _, k := range keys {
		p := strings.Split(k, "|")
		s := r.scores[k]
		cited, follows := "—", "—"
		if s.Asked > 0 {
			cited = fmt.Sprintf("%.3f (%d/%d)", float64(s.Cited)/float64(s.Asked), s.Cited, s.Asked)
		}
		if s.TopEvidence > 0 {
			follows = fmt.Sprintf("%.3f", float64(s.Followed)/float64(s.TopEvidence))
		}
		fmt.Fprintf(&b, "%-12s %-8s %-12s %5d %8.3f %9.3f %8.3f %7.3f %16s %8s\n", p[1], p[2], p[3], s.N,
			s.avg(s.Recall5), s.avg(s.Recall10), s.avg(s.NDCG10), s.avg(float64(s.First)), cited, follows)
	}
	for _, load := range []string{"learnings", "conversation"} {
		if n := r.Adversarial[half+"|"+load]; n > 0 {
			fmt.Fprintf(&b, "%s: recall said it does not know on %d of %d adversarial questions\n", load, r.IDK[half+"|"+load], n)
		}
	}
	return b.String()
}

func rowOrder(k string) string {
	p := strings.Split(k, "|")
	load := map[string]string{"learnings": "0", "conversation": "1"}[p[1]]
	mode := map[string]string{"hybrid": "0", "keyword": "1", "vector": "2"}[p[2]]
	cat := "9"
	for n, name := range Categories {
		if name == p[3] {
			cat = fmt.Sprint(n)
		}
	}
	if p[3] == "all" {
		cat = "0"
	}
	return load + mode + cat
}

package locomo

import (
	"fmt"
	"strings"
)

// MixedTable sets the figures of one half in the mixed memory beside those
// of the conversation alone: hybrid fetch's recall@5 and recall's first
// citation over every category, a row per way of loading.
func MixedTable(alone, mixed *Report, half string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s %5s %14s %14s %18s %18s\n", "load", "n", "recall@5 alone", "recall@5 mixed", "first cited alone", "first cited mixed")
	for _, load := range Loads {
		a, m := alone.At(half, load, "hybrid", "all"), mixed.At(half, load, "hybrid", "all")
		if m.N == 0 {
			continue
		}
		fmt.Fprintf(&b, "%-12s %5d %14s %14.3f %18s %18s\n", load, m.N, orDash(a.N > 0, a.avg(a.Recall5)), m.avg(m.Recall5),
			cited(a), cited(m))
	}
	for _, load := range Loads {
		k := half + "|" + load
		if n := mixed.Adversarial[k]; n > 0 {
			fmt.Fprintf(&b, "%s: recall said it does not know on %d of %d adversarial questions mixed (%d alone)\n", load, mixed.IDK[k], n, alone.IDK[k])
		}
	}
	return b.String()
}

func orDash(ok bool, v float64) string {
	if !ok {
		return "—"
	}
	return fmt.Sprintf("%.3f", v)
}

// cited is recall's first citation as a share and a count.
func cited(s *Score) string {
	if s.Asked == 0 {
		return "—"
	}
	return fmt.Sprintf("%.3f (%d/%d)", float64(s.Cited)/float64(s.Asked), s.Cited, s.Asked)
}

// Recall5Mean is the mean recall@5 of a cell.
func (s Score) Recall5Mean() float64 { return s.avg(s.Recall5) }

// CitedShare is the share of questions whose recall answer cites an
// evidence turn first.
func (s Score) CitedShare() float64 { return float64(s.Cited) / float64(max(s.Asked, 1)) }

// Summary is one line per way of loading of a half, hybrid over every
// category: recall@5, fetch's first hit, recall's first citation, how
// often recall cites fetch's first hit first when that hit is evidence,
// and "I don't know" on the adversarial questions. It is what a rule's
// ablation compares.
func (r *Report) Summary(half string) string {
	var b strings.Builder
	for _, load := range Loads {
		s := r.At(half, load, "hybrid", "all")
		if s.N == 0 {
			continue
		}
		k := half + "|" + load
		fmt.Fprintf(&b, "summary %-8s %-12s recall@5 %.3f first %d/%d cited %d/%d follows %d/%d idk %d/%d\n",
			half, load, s.avg(s.Recall5), s.First, s.N, s.Cited, s.Asked, s.Followed, s.TopEvidence, r.IDK[k], r.Adversarial[k])
	}
	return b.String()
}

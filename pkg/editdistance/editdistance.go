// Package editdistance measures how far apart two strings are in typing
// mistakes: memory matches a misspelt query word to a stored one with it,
// configuration names the variable a misspelt one was meant to be, and
// the gateway the JSON-RPC methods an unknown one is nearest to.
package editdistance

import "sort"

// OSA is the optimal string alignment distance between a and b, in runes:
// Levenshtein's insertions, deletions and substitutions, plus swapping two
// neighbours (the commonest typo) as one edit, without editing one
// substring twice.
func OSA(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// Within reports whether OSA(a, b) <= k, faster than computing it: no
// allocation for ASCII words of up to 63 bytes, and it stops as soon as
// every alignment is past k. Memory asks it of every word of a page of
// candidates against a query's words, and most pairs are far apart.
func Within(a, b string, k int) bool {
	if a == b {
		return k >= 0
	}
	if len(a) > 63 || len(b) > 63 || !ascii(a) || !ascii(b) {
		return OSA(a, b) <= k
	}
	if d := len(a) - len(b); d > k || -d > k {
		return false
	}
	var rows [3][64]int
	prev2, prev, cur := &rows[0], &rows[1], &rows[2]
	for j := 0; j <= len(b); j++ {
		prev[j] = j
	}
	prevMin := 0
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			c := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				c = min(c, prev2[j-2]+1)
			}
			cur[j] = c
			rowMin = min(rowMin, c)
		}
		// A later row is never below this one's least, or the one
		// before's plus a swap.
		if rowMin > k && prevMin >= k {
			return false
		}
		prevMin = rowMin
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)] <= k
}

// Nearest returns the n candidates at the least OSA distance from s,
// nearest first; of candidates as near as each other, those listed first.
func Nearest(s string, candidates []string, n int) []string {
	type scored struct {
		c string
		d int
	}
	all := make([]scored, len(candidates))
	for i, c := range candidates {
		all[i] = scored{c, OSA(s, c)}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].d < all[j].d })
	out := make([]string, 0, min(n, len(all)))
	for _, sc := range all[:min(n, len(all))] {
		out = append(out, sc.c)
	}
	return out
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

package retrieval

import (
	"cmp"
	"context"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/openhuman-go/openhuman-go/services/memory/answer"
	"github.com/openhuman-go/openhuman-go/services/memory/keywordindex"
	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
	"github.com/openhuman-go/openhuman-go/services/memory/wordnet"
)

// Rerank weights, set on the design half of the evaluation. Explain
// (RerankWeights) reports the first two; the rules' boosts it reports
// as what they added.
const (
	// rerankDepth is how many of the best fused candidates are reranked by
	// the words they hold; rerankVectorExtra more come from the vector
	// leg's best when fusion left them further down (a misspelt question
	// whose keyword leg found only its common words). The keyword index
	// tells which words a candidate holds, so this reads no text.
	rerankDepth       = 20
	rerankVectorExtra = 5
	// rerankRead is how many of the reranked best are weighed for
	// corrections: about a page.
	rerankRead = 12

	rerankFused      = 0.3 // the fused score, relative to the best candidate's
	rerankCoverage   = 1.0 // share of the question's word weight the note holds
	rerankCorrection = 0.1 // a correction, times its coverage
	rerankCurrent    = 0.3 // a correction when the question asks what holds now
	// rerankFirstPerson lifts a note saying "I" (or "user") for a
	// question asking about "I", outside conversations: "I work at Acme"
	// before "My brother works at Initech" for "Where do I work?".
	rerankFirstPerson = 0.05

	// typoMaxDocFreq: a question word memory holds in fewer items than
	// this may be a typo of a word a candidate holds.
	typoMaxDocFreq = 10
)

// rerank reorders the first candidates of order (fused, best first) as
// fusion.go's opening comment says, in place, and gives every candidate a
// score that falls with its place. vecBest are the vector leg's best seqs;
// idx is the keyword index as the search caught it up, kwTerms what the
// keyword leg looked for.
func (e *Engine) rerank(ctx context.Context, idx *keywordindex.Index, q Query, kwTerms []keywordindex.Term, order []Candidate, vecBest []Ranked) []Candidate {
	terms := lexicon.Terms(q.Text)
	if len(order) == 0 || len(terms) == 0 {
		return order
	}
	n := min(rerankDepth, len(order))
	// Bring the vector leg's best up to the candidates.
	for _, r := range vecBest[:min(rerankVectorExtra, len(vecBest))] {
		if i := slices.IndexFunc(order, func(c Candidate) bool { return c.Seq == r.Seq }); i >= n {
			x := order[i]
			copy(order[n+1:i+1], order[n:i])
			order[n] = x
			n++
		}
	}
	order, n = e.withAnswers(q, order, n)
	words := lexicon.Words(q.Text)
	speaker := e.userSpeaker(words)
	if speaker != "" && !slices.Contains(terms, speaker) {
		// "I" and "my" are the user: a word naming them, which only their
		// own turns hold (speakerHeld).
		if len(kwTerms) == len(terms) {
			kwTerms = append(kwTerms[:len(kwTerms):len(kwTerms)], keywordindex.Term{Key: speaker})
		}
		terms = append(terms[:len(terms):len(terms)], speaker)
	}
	cands := order[:n]
	own := termKeys(terms, kwTerms)
	weights := termWeights(idx, q.Marks, own, q.Universe)
	for i, t := range terms {
		if currentCues[t] && t != "today" && len(terms) == 2 {
			// "current" in "What is my current address?" asks when, not
			// what: a note that lacks it still answers. Beside more words
			// it let "my blood type" answer "my current blood pressure",
			// and "today" is often what is asked ("What's on today?").
			weights[i] *= cueWeight
		}
	}
	keys := heldKeys(own, kwTerms, terms)
	best := 0.0
	seqs := make([]int64, len(cands))
	for i, c := range cands {
		best = max(best, c.Score)
		seqs[i] = c.Seq
	}
	var cues uint64 // the terms asking what holds now, which a correction holds
	for i, t := range terms[:min(64, len(terms))] {
		if currentCues[t] && t != "today" {
			cues |= 1 << i
		}
	}
	cover, inContext, holds := e.coverages(idx, seqs, own, keys, weights, cues)
	heldBy := make(map[int64]uint64, len(seqs))
	for i, seq := range seqs {
		heldBy[seq] = holds[i]
	}
	var mine []uint64 // by candidate, which of "i", "user" (bits 0, 1) and "we" it holds
	if speaker == "" && slices.Contains(words, "i") {
		// "User prefers TypeScript" is how an assistant writes of the
		// user; "We relocated to Lisbon" tells of the user's household,
		// theirs too, though it gains nothing over "I" (rerankFirstPerson).
		mine = idx.Held(seqs, []string{"i", "user", "we"}, 0, nil, nil)
	}
	var self map[int64]bool // the user's own notes, where asked of the user
	for i, m := range mine {
		if m != 0 {
			if self == nil {
				self = map[int64]bool{}
			}
			self[seqs[i]] = true
		}
	}
	for i := range cands {
		c := &cands[i]
		c.Coverage, c.InContext = cover[i], inContext[i]
		// The score is computed as it always was, to the last bit: explain
		// reports Fused beside it.
		c.Fused, c.Reranked = c.Score/best, true
		c.Score = rerankFused*c.Score/best + rerankCoverage*inContext[i]
		if mine != nil && mine[i]&0b11 != 0 {
			c.Score += rerankFirstPerson
		}
	}
	e.crossEncode(ctx, q.Text, cands)
	byScore(cands)
	// Among the best few, a correction outranks what it corrects.
	top := cands[:min(rerankRead, len(cands))]
	current, present := asksNow(words)
	// A correction gains only where it holds every name the question asks
	// about: Ana's move is no news of where Sam lives.
	names, times := nameTerms(q.Text, terms)
	read := weighed{heldBy: heldBy, weights: weights, names: names, times: times, cues: cues, self: self}
	for i := range top {
		if e.isCorrection(top[i].Seq) && heldBy[top[i].Seq]&names == names {
			// The score is mostly coverage: a correction about something
			// else gains little.
			boost := rerankCorrection
			if current {
				boost += rerankCurrent
			}
			top[i].Score += boost * min(top[i].Score, 1)
		}
	}
	byScore(top)
	switch {
	case current:
		e.supersede(top, read, stateTerms(kwTerms), nil)
	case present:
		states, only := framed(idx, top, kwTerms)
		e.supersede(top, read, states, only)
	}
	// The rest keep their fused order, scored below the last candidate.
	floor := cands[len(cands)-1].Score
	rest := order[n:]
	if len(rest) > 0 && rest[0].Score > 0 {
		first := rest[0].Score
		for i := range rest {
			rest[i].Score = floor * 0.99 * rest[i].Score / first
		}
	}
	if (current || present) && asksOfUser(words) {
		order = e.partedFrom(idx, q, terms, order, len(top), read)
	}
	return order
}

// nameTerms are the bits of the terms (the question's, lexicon.Terms)
// that name someone or something the question asks about (answer.Names),
// and apart those naming a day or a month (times), a month's day number
// with it ("June 5", "5 June"): a time is what a change may replace
// ("Yoga moved to Wednesdays" for "Do I still do yoga on Tuesday?", "My
// haircut moved to June 9" for "Is my haircut on June 5?").
func nameTerms(question string, terms []string) (names, times uint64) {
	for _, n := range answer.Names(question) {
		if k := slices.Index(terms, n); k >= 0 && k < 64 {
			if answer.TimeWord(n) {
				times |= 1 << k
			} else {
				names |= 1 << k
			}
		}
	}
	if !slices.ContainsFunc(terms, monthDay) {
		return names, times // the question's words are read again only for a day
	}
	words := lexicon.Words(question)
	for i, w := range words {
		if !monthDay(w) || !(i > 0 && answer.TimeWord(words[i-1]) || i+1 < len(words) && answer.TimeWord(words[i+1])) {
			continue
		}
		if k := slices.Index(terms, w); k >= 0 && k < 64 {
			times |= 1 << k
		}
	}
	return names, times
}

// monthDay reports whether w is a day of a month: 1 to 31, or "5th".
func monthDay(w string) bool {
	w = strings.TrimRight(w, "stndrh")
	n, err := strconv.Atoi(w)
	return err == nil && n >= 1 && n <= 31
}

// byScore sorts candidates best first, ties to the newest.
func byScore(cs []Candidate) {
	slices.SortStableFunc(cs, func(a, b Candidate) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(b.Seq, a.Seq)
	})
}

// MinCollection is the memory size from which a word's rarity in it
// means something. A small memory makes every word look rare; counting it
// as at least MinCollection items keeps the weights near equal below it.
const MinCollection = 100

// termKey is a key that stands for a question word (terms[term]) in a
// note: the word's own, or, weighing less, a WordNet relative's. typo says
// a note's near miss of it may count: the word is its own key and no
// English word WordNet knows.
type termKey struct {
	key    string
	term   int
	weight float64
	typo   bool
}

// heldKeys lists the keys that stand for the question's words: each
// word's own (a typo of it forgiven when the word is none WordNet knows:
// "grandpa" is spelt as meant, and no typo of the "grandma" a note holds),
// and the relatives the keyword leg looked for (kwTerms, made by
// keywordTerms, one per word when they were expanded).
func heldKeys(own [][]string, kwTerms []keywordindex.Term, words []string) []termKey {
	var keys []termKey
	for i, ks := range own {
		_, english := wordnet.Base(words[i])
		for _, k := range ks {
			keys = append(keys, termKey{key: k, term: i, weight: 1, typo: !english})
		}
	}
	if len(kwTerms) != len(own) {
		return keys // not expanded
	}
	for i, t := range kwTerms {
		for _, a := range t.Alts {
			keys = append(keys, termKey{key: a.Key, term: i, weight: a.Weight})
		}
	}
	return keys
}

// coverages is, for each item of seqs, the share of the terms' weight it
// holds: a term counts fully when the item holds its own word (up to a
// typo), for its weight when it holds a relative only, and a speaker's
// name only in their own turns (speakerHeld). own are the terms' keys.
// inContext is the same with what a turn's turn before holds counted for
// contextWeight: it ranks; the item's own share is what an answer may
// quote it for.
//
// A correction holds the terms asking what holds now (cues: "current",
// "still"), which is what it tells: "Correction: my dentist is now Dr.
// Lee" answers "What's the name of my current dentist?".
func (e *Engine) coverages(idx *keywordindex.Index, seqs []int64, own [][]string, keys []termKey, weights []float64, cues uint64) (cover, inContext []float64, holds []uint64) {
	nt := len(weights)
	// The turns before the turns among seqs are weighed too, after them.
	prev := e.before(seqs, contextTurns)
	n := len(seqs)
	at := make([][]int, n) // indexes in seqs of seqs[i]'s turns before, nearest first
	if prev != nil {
		all := make([]int64, n, n*(1+contextTurns))
		copy(all, seqs)
		for i, ps := range prev {
			for _, p := range ps {
				j := slices.Index(all, p)
				if j < 0 {
					j = len(all)
					all = append(all, p)
				}
				at[i] = append(at[i], j)
			}
		}
		seqs = all
	}
	held := make([]float64, len(seqs)*nt) // by seq, then term: the best key's weight
	var masks []uint64
	// A question word's own key that may be a typo (termKey.typo) is
	// forgiven one when memory holds it in few items: a word memory holds
	// often is taken as spelt right, and its near misses are other words
	// (set on the design half). Relatives' keys must match exactly.
	for start := 0; start < len(keys); start += 64 {
		chunk := keys[start:min(start+64, len(keys))]
		strs := make([]string, len(chunk))
		var forgive uint64
		for j, k := range chunk {
			strs[j] = k.key
			if k.typo && idx.DocFreq(k.key) < typoMaxDocFreq {
				forgive |= 1 << j
			}
		}
		masks = idx.Held(seqs, strs, forgive, lexicon.Near, masks)
		for i, m := range masks {
			for ; m != 0; m &= m - 1 {
				k := chunk[bits.TrailingZeros64(m)]
				held[i*nt+k.term] = max(held[i*nt+k.term], k.weight)
			}
		}
	}
	if cues != 0 {
		for i, seq := range seqs {
			if e.isCorrection(seq) {
				for m := cues; m != 0; m &= m - 1 {
					held[i*nt+bits.TrailingZeros64(m)] = 1
				}
			}
		}
	}
	seqs = seqs[:n]
	inHeld := slices.Clone(held[:n*nt])
	e.speakerHeld(seqs, own, held, false)
	for i, js := range at {
		w := 1.0
		for _, j := range js {
			w *= contextWeight
			for k := range nt {
				inHeld[i*nt+k] = max(inHeld[i*nt+k], w*held[j*nt+k])
			}
		}
	}
	// A speaker's name counts by who said the turn, whoever said the one
	// before.
	e.speakerHeld(seqs, own, inHeld, true)
	holds = make([]uint64, len(seqs))
	for i := range seqs {
		for k := range min(nt, 64) {
			if held[i*nt+k] >= 1 {
				holds[i] |= 1 << k
			}
		}
	}
	return shares(held, weights, len(seqs)), shares(inHeld, weights, len(seqs)), holds
}

// shares is, for each of the first n items of held (by item, then term),
// the share of the terms' weights it holds.
func shares(held, weights []float64, n int) []float64 {
	nt := len(weights)
	var total float64
	for _, w := range weights {
		total += w
	}
	out := make([]float64, n)
	if total == 0 {
		return out
	}
	for i := range n {
		var got float64
		for j, w := range weights {
			got += held[i*nt+j] * w
		}
		out[i] = got / total
	}
	return out
}

// termWeights weighs each question word (by its index keys, termKeys)
// by how rare it is in memory (inverse document frequency): a hit that
// shares only the common words ("Maya") with a question about something
// memory never heard of ("blood type") does not answer it. Memory is the
// items of universe when it is not nil; idx is caught up to m.
func termWeights(idx *keywordindex.Index, m Marks, keys [][]string, universe []int64) []float64 {
	items := m.Items
	if universe != nil {
		items = int64(len(universe))
	}
	n := float64(max(items, MinCollection))
	w := make([]float64, len(keys))
	for i, ks := range keys {
		df := 0
		if len(ks) > 0 {
			key := ks[len(ks)-1]
			if universe != nil {
				df = min(idx.DocFreqWithin(key, universe), 1000)
			} else {
				df = min(idx.DocFreq(key), 1000)
			}
		}
		w[i] = math.Log(1 + n/float64(1+df))
	}
	return w
}

// termKeys are the index keys of each question word: the keyword leg's
// (kwTerms, made by keywordTerms) when it made one per word, else made here.
func termKeys(terms []string, kwTerms []keywordindex.Term) [][]string {
	out := make([][]string, len(terms))
	for i, t := range terms {
		if len(kwTerms) == len(terms) {
			out[i] = []string{kwTerms[i].Key}
		} else {
			out[i] = textkeys.Keys([]string{t})
		}
	}
	return out
}

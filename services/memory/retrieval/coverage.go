package retrieval

import (
	"math"
	"math/bits"
	"slices"

	"github.com/openhuman-go/openhuman-go/services/memory/glove"
	"github.com/openhuman-go/openhuman-go/services/memory/keywordindex"
	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
	"github.com/openhuman-go/openhuman-go/services/memory/wordnet"
)

// How much of a question a candidate holds: each question word weighed by
// its rarity in memory, held by its own key, a WordNet relative's, or a
// near miss of a rare word; a turn holding what the turns before it hold,
// for less.

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
	var prev [][]int64
	if e.profile.On(SwitchContext) {
		prev = e.before(seqs, contextTurns)
	}
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
	held := e.heldWeights(idx, seqs, keys, nt)
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
	if e.profile.On(SwitchSpeaker) {
		e.speakerHeld(seqs, own, held, false)
	}
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
	if e.profile.On(SwitchSpeaker) {
		e.speakerHeld(seqs, own, inHeld, true)
	}
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

// heldWeights is, by item of seqs then question word (nt of them), the
// weight of the best key of the word the item holds. A question word's
// own key that may be a typo (termKey.typo) is forgiven one when memory
// holds it in few items: a word memory holds often is taken as spelt
// right, and its near misses are other words (set on the design half).
// Relatives' keys must match exactly.
func (e *Engine) heldWeights(idx *keywordindex.Index, seqs []int64, keys []termKey, nt int) []float64 {
	held := make([]float64, len(seqs)*nt)
	var masks []uint64
	for start := 0; start < len(keys); start += 64 {
		chunk := keys[start:min(start+64, len(keys))]
		strs := make([]string, len(chunk))
		var forgive uint64
		for j, k := range chunk {
			strs[j] = k.key
			if k.typo && idx.DocFreq(k.key) < typoMaxDocFreq && e.profile.On(SwitchTypo) {
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
	return held
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

// termWeights weighs each question word (terms, by their index keys,
// termKeys) by how rare it is (inverse document frequency): a hit that
// shares only the common words ("Maya") with a question about something
// memory never heard of ("blood type") does not answer it. Rarity in
// memory is blended with rarity in English (generalIDF), each counting
// by how many items it stands on: memory's own items, and
// generalWeight items for English. A small memory makes every word look
// rare; English then tells "take" is lighter than "coffee". Memory is the
// items of universe when it is not nil; idx is caught up to m.
func termWeights(idx *keywordindex.Index, m Marks, terms []string, keys [][]string, universe []int64) []float64 {
	items := m.Items
	if universe != nil {
		items = int64(len(universe))
	}
	n := float64(max(items, 1))
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
		own := math.Log(1 + n/float64(1+df))
		w[i] = (n*own + generalWeight*generalIDF(terms[i])) / (n + generalWeight)
	}
	return w
}

// generalWeight is how many items English's word rarity counts for
// beside memory's own.
const generalWeight = 100

// noteWords is about how many words a note holds: a word of share f of
// running text is in about noteWords × f of notes.
const noteWords = 20

// generalIDF is a word's inverse document frequency in English, on the
// scale of termWeights' own: from its share of running text (GloVe's
// frequency rank, Zipf's law), as if each note held noteWords words. A
// word GloVe does not know (a name, a typo, jargon) is taken as rare.
func generalIDF(word string) float64 {
	p := 1e-6
	if r, ok := glove.Rank(word); ok {
		p = min(1, noteWords*glove.Frequency(r))
	}
	return math.Log(1 + 1/p)
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

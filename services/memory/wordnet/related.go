package wordnet

import "sort"

// Relation says how a related word is related.
type Relation uint8

const (
	// Synonym: the words share a sense ("typeface", "font").
	Synonym Relation = iota
	// Derived: one is formed from the other ("rotate", "rotation").
	Derived
	// Broader: the word names a kind the other is one of ("font", "type").
	Broader
)

// Related is a word related to another, and how strongly: for a synonym or
// a broader word, the chance that both are meant in a shared sense (the
// product of their weights for it); 1 for a derived word.
type Related struct {
	Word     string
	Relation Relation
	Weight   float64
}

// RelatedTo returns the words related to word (in any inflected form),
// strongest first, each once under its strongest relation; words of fewer
// than minWeight are left out. Rare senses are not in the table, so a
// common word does not bring in what it means once in a thousand uses
// ("face" is not offered for "typeface").
func RelatedTo(word string, minWeight float64) []Related {
	t := get()
	i, ok := t.lookup(word)
	if !ok {
		return nil
	}
	best := map[int32]Related{}
	offer := func(j int32, rel Relation, w float64) {
		if j == i || w < minWeight {
			return
		}
		if r, ok := best[j]; !ok || w > r.Weight {
			best[j] = Related{Word: t.lemmas[j], Relation: rel, Weight: w}
		}
	}
	for _, s := range t.senses[t.senseAt[i]:t.senseAt[i+1]] {
		for _, m := range t.members[t.memAt[s.Synset]:t.memAt[s.Synset+1]] {
			offer(m.word, Synonym, float64(s.Weight*m.weight))
		}
		for _, h := range t.hyper[t.hypAt[s.Synset]:t.hypAt[s.Synset+1]] {
			for _, m := range t.members[t.memAt[h]:t.memAt[h+1]] {
				offer(m.word, Broader, float64(s.Weight*m.weight))
			}
		}
	}
	for _, j := range t.derived[t.derAt[i]:t.derAt[i+1]] {
		offer(j, Derived, 1)
	}
	out := make([]Related, 0, len(best))
	for _, r := range best {
		out = append(out, r)
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Weight != out[b].Weight {
			return out[a].Weight > out[b].Weight
		}
		return out[a].Word < out[b].Word
	})
	return out
}

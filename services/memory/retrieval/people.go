package retrieval

import (
	"context"
	"slices"

	"github.com/openhuman-go/openhuman-go/services/memory/answer"
	"github.com/openhuman-go/openhuman-go/services/memory/keywordindex"
	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
)

// peopleNames are the names the notes give the user's relatives and pets
// ("My sister is Elena", "a cat named Mochi": answer.RelativeNames), by
// naming note, kept as the keyword index reads the store. A question
// asking of "my sister" then looks for Elena too and counts her as the
// sister, wherever the note naming her ranks: "Elena uses a Galaxy Tab"
// answers "What tablet does my sister use?".
type peopleNames map[int64]map[string][]string

func (p *peopleNames) add(seq int64, text string) {
	if named := answer.RelativeNames(text); named != nil {
		if *p == nil {
			*p = peopleNames{}
		}
		(*p)[seq] = named
	}
}

func (p peopleNames) remove(seq int64) { delete(p, seq) }

// of are the names given, by notes among universe (nil: all), to each
// relation or pet. Universe, not the seqs a read's filter allows: a note
// of another kind or tag still says who my sister is.
func (p peopleNames) of(universe []int64) map[string][]string {
	var out map[string][]string
	for seq, named := range p {
		if !within(seq, universe) {
			continue
		}
		for rel, names := range named {
			if out == nil {
				out = map[string][]string{}
			}
			for _, n := range names {
				if !slices.Contains(out[rel], n) {
					out[rel] = append(out[rel], n)
				}
			}
		}
	}
	return out
}

// within reports whether seq is in the ascending seqs, nil holding all.
func within(seq int64, seqs []int64) bool {
	if seqs == nil {
		return true
	}
	_, ok := slices.BinarySearch(seqs, seq)
	return ok
}

// PeopleNames are the names the notes among universe (nil: all) give the
// user's relatives and pets (peopleNames), relation → names, with the
// keyword index caught up to m.
func (e *Engine) PeopleNames(ctx context.Context, m Marks, universe []int64) (map[string][]string, error) {
	if _, err := e.syncKeywords(ctx, m); err != nil {
		return nil, err
	}
	st := &e.keywords
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.people.of(universe), nil
}

// addPeopleNames gives each of the terms (keywordTerms' for q) that asks
// of the user's relative or pet ("sister" in "my sister":
// answer.Asked.AsksOf) the names memory gives them as alternatives, each
// worth the word, as withFrames does the states.
func (e *Engine) addPeopleNames(terms []keywordindex.Term, q Query) {
	words := lexicon.Terms(q.Text)
	if len(words) != len(terms) || !slices.ContainsFunc(words, lexicon.Someone) {
		return // a word of several keys (terms do not line up), or no one asked of
	}
	st := &e.keywords
	st.mu.Lock()
	named := st.people.of(q.Universe)
	st.mu.Unlock()
	if len(named) == 0 {
		return
	}
	asked := answer.Ask(q.Text)
	var tok textkeys.Tokenizer
	for i, w := range words {
		if !asked.AsksOf(w) {
			continue
		}
		for rel, names := range named {
			if !lexicon.SameOne(w, rel) {
				continue
			}
			for _, n := range names {
				if key := keyOf(&tok, n); key != "" && !slices.ContainsFunc(terms[i].Alts, func(a keywordindex.Alt) bool { return a.Key == key }) {
					terms[i].Alts = append(terms[i].Alts, keywordindex.Alt{Key: key, Weight: 1})
				}
			}
		}
	}
}

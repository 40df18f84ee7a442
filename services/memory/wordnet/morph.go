package wordnet

import (
	"slices"
	"strings"
)

// detach are WordNet's rules for undoing regular inflections (morphy's
// detachment rules) of nouns and verbs, together: a candidate counts only if
// the table knows it. The adjective rules (-er, -est) are left out: the
// table does not say which lemmas are adjectives, and "docker" is not more
// "dock". Irregular comparatives are in the exceptions.
var detach = []struct{ suffix, ending string }{
	{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"},
	{"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""},
}

// lookup finds the word number of word's lemma: the word itself, an
// irregular form's base, or a regular form's, in that order.
func (t *table) lookup(word string) (int32, bool) {
	if i, ok := t.index[word]; ok {
		return i, true
	}
	if i, ok := t.exc[word]; ok {
		return i, true
	}
	for _, d := range detach {
		if stem, ok := strings.CutSuffix(word, d.suffix); ok && len(stem) >= 2 {
			if i, ok := t.index[stem+d.ending]; ok {
				return i, true
			}
		}
	}
	// A doubled consonant before -ed/-ing ("stopped", "running").
	for _, suf := range []string{"ing", "ed"} {
		if stem, ok := strings.CutSuffix(word, suf); ok && len(stem) >= 3 && stem[len(stem)-1] == stem[len(stem)-2] {
			if i, ok := t.index[stem[:len(stem)-1]]; ok {
				return i, true
			}
		}
	}
	return 0, false
}

// Forms returns the other words that are forms of word's lemma by
// WordNet's irregular forms, the lemma among them when word is not it
// ("run" → "ran"; "went" → "go", "gone"): a stemmer cannot tell that
// "ran" is "run", and a question asks "did I run" of a note saying "I
// ran". Nil for a word WordNet does not know or a lemma without irregular
// forms. The slice is the caller's.
func Forms(word string) []string {
	t := get()
	i, ok := t.lookup(word)
	if !ok {
		return nil
	}
	t.formsOnce.Do(func() {
		t.forms = make(map[int32][]string)
		for form, j := range t.exc {
			t.forms[j] = append(t.forms[j], form)
		}
		for _, fs := range t.forms {
			slices.Sort(fs) // map order is random; a search must not be
		}
	})
	fs := t.forms[i]
	if len(fs) == 0 {
		return nil
	}
	out := make([]string, 0, len(fs)+1)
	if t.lemmas[i] != word {
		out = append(out, t.lemmas[i])
	}
	for _, f := range fs {
		if f != word {
			out = append(out, f)
		}
	}
	return out
}

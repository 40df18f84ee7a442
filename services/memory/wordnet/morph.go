package wordnet

import "strings"

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

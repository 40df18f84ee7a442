package lexicon

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Names are the names a text speaks of: its capitalised words past a
// sentence's first, not all capitals, lowercased, without a possessive
// "'s". Capitals mark a name in most languages written in Latin letters;
// no word list decides what a name is.
func Names(text string) []string {
	var out []string
	start := true
	for _, f := range strings.Fields(text) {
		w, _ := Possessor(f)
		if w != "" && !start {
			r, n := utf8.DecodeRuneInString(w)
			if unicode.IsUpper(r) && n < len(w) && strings.ToLower(w[n:]) == w[n:] && utf8.RuneCountInString(w) > 1 {
				out = append(out, strings.ToLower(w))
			}
		}
		start = strings.ContainsAny(f[len(f)-1:], ".!?:")
	}
	return out
}

// Possessor returns a field's word without its punctuation and without a
// possessive "'s" ("Priya's," is Priya), and whether it had one.
func Possessor(f string) (string, bool) {
	w := TrimWord(f)
	if base, ok := strings.CutSuffix(w, "'s"); ok {
		return base, true
	}
	return strings.CutSuffix(w, "’s")
}

// TrimWord is a field without the punctuation around it.
func TrimWord(f string) string {
	return strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// timeWords name a day, a month, a part of the day or a period: a name
// among them is a time, not someone.
var timeWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`monday tuesday wednesday thursday friday saturday sunday mondays tuesdays
		wednesdays thursdays fridays saturdays sundays january february march april may june july august
		september october november december daily weekly monthly yearly nightly morning evening noon midnight
		tonight today tomorrow yesterday week weeks month year every`) {
		m[w] = true
	}
	return m
}()

// TimeWord reports whether w (lowercased) names a time: a day, a month,
// a part of the day, a period.
func TimeWord(w string) bool { return timeWords[w] }

package answer

import (
	"strings"
	"unicode"

	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
)

// WithoutNamesSpokenTo is text with the names it speaks to, rather than
// of, left out ("Thanks, Caroline! I ran a race" keeps "Thanks, ! I ran a
// race"): the keyword index holds a note so, and a question naming
// Caroline finds what is said of her, not every note said to her. A name
// is a capitalised word, no greeting or stopword, that addressed finds
// spoken to.
func WithoutNamesSpokenTo(text string) string {
	rest, _ := SplitNamesSpokenTo(text)
	return rest
}

// SplitNamesSpokenTo is WithoutNamesSpokenTo, and the names it left out,
// as the text writes them.
func SplitNamesSpokenTo(text string) (rest string, names []string) {
	fields := strings.Fields(text)
	for i, f := range fields {
		w := trimWord(f)
		if w == "" || !unicode.IsUpper([]rune(w)[0]) {
			continue
		}
		if lw := strings.ToLower(w); greetings[lw] || lexicon.Stopword(lw) || !addressed(fields, i) {
			continue
		}
		fields[i] = strings.Replace(f, w, "", 1)
		names = append(names, w)
	}
	if len(names) == 0 {
		return text, nil
	}
	return strings.Join(fields, " "), names
}

package answer

import (
	"strings"
	"unicode"

	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
)

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

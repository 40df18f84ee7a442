package answer

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
)

// Highlight marks the words of s that are terms (compared by stem, as
// lexicon.Coverage does) in Markdown bold, which a person and a language
// model both read as emphasis. Matching words with only spaces between
// them are marked as one run.
func Highlight(terms []string, s string) string {
	stems := make(map[string]bool, len(terms))
	for _, t := range terms {
		stems[lexicon.Stem(t)] = true
	}
	var spans [][2]int // matching words, merged across spaces
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			i += n
			continue
		}
		j := i + strings.IndexFunc(s[i:], func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if j < i {
			j = len(s)
		}
		if stems[lexicon.Stem(strings.ToLower(s[i:j]))] {
			if k := len(spans) - 1; k >= 0 && strings.TrimSpace(s[spans[k][1]:i]) == "" {
				spans[k][1] = j
			} else {
				spans = append(spans, [2]int{i, j})
			}
		}
		i = j
	}
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp[0]])
		b.WriteString("**" + s[sp[0]:sp[1]] + "**")
		at = sp[1]
	}
	b.WriteString(s[at:])
	return b.String()
}

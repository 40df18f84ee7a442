package answer

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
)

// Unwrap joins the lines of hard-wrapped paragraphs and list items,
// keeping the line breaks around blank lines, headings, list items,
// quotes, tables and fences.
func Unwrap(text string) string {
	if !strings.Contains(text, "\n") {
		return text
	}
	lines := strings.Split(text, "\n")
	var b strings.Builder
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if i > 0 {
			if l == "" || lines[i-1] == "" || startsBlock.MatchString(l) || standsAlone.MatchString(lines[i-1]) ||
				underline.MatchString(l) || underline.MatchString(lines[i-1]) {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
		lines[i] = l
		b.WriteString(l)
	}
	return b.String()
}

var (
	// startsBlock matches a Markdown line that starts a block of its own.
	startsBlock = regexp.MustCompile("^(?:#|>|\\||```|[-*+] |\\d+[.)] )")
	// standsAlone matches one that nothing after it continues.
	standsAlone = regexp.MustCompile("^(?:#|\\||```)")
	// underline matches the line under a heading in Setext and AsciiDoc
	// ("Usage" over "-----"), which belongs to neither neighbour.
	underline = regexp.MustCompile(`^(?:={3,}|-{3,}|~{3,}|\^{3,})$`)
)

var sentenceEnd = regexp.MustCompile(`[.!?]+\s+|\n+`)

// label is what a transcript's line starts with before what was said: a
// stamp, then a speaker's name and a colon or "said,": "(1:56 pm on 8 May,
// 2023) Caroline said, \"", "[09:12] Ana: ". A question's words it holds
// (the speaker's name) tell who spoke, not what the sentence says.
// Its last group is the speaker's first name.
var label = regexp.MustCompile(`^(?:` + stamp + `\s*)?(\p{Lu}[\p{L}.'-]*)(?: \p{Lu}[\p{L}.'-]*)?(?::| said,)\s*["“]?`)

// MaxSnippet bounds a quoted sentence, in characters.
const MaxSnippet = 300

// Sentence returns the sentence of text that contains most of terms (the
// earliest on a tie; a sentence holding the kind of answer t asks for wins
// one), or all of a short text, clipped to MaxSnippet characters.
func Sentence(terms []string, t Type, text string) string {
	text = strings.TrimSpace(text)
	if short(text) {
		return text
	}
	best, _ := bestSentence(terms, t, text)
	return clipRunes(best, MaxSnippet)
}

// Quote is Sentence, and whether the sentence it chose by the words, even
// in a short text quoted whole, is a question: a note that asks what a
// question asks ("Did you make it?") holds its words but not its answer.
// A statement holding as many of the words wins the tie.
func Quote(terms []string, t Type, text string) (quote string, asks bool) {
	text = strings.TrimSpace(text)
	best, asks := bestSentence(terms, t, text)
	if short(text) {
		return text, asks
	}
	return clipRunes(best, MaxSnippet), asks
}

// short reports whether text is quoted whole: one line of at most
// MaxSnippet characters.
func short(text string) bool {
	return utf8.RuneCountInString(text) <= MaxSnippet && !strings.Contains(text, "\n")
}

// bestSentence is the sentence of text holding most of terms, and whether
// it is a question.
func bestSentence(terms []string, t Type, text string) (best string, question bool) {
	bestN := -1
	start := 0
	first := true
	for _, loc := range append(sentenceEnd.FindAllStringIndex(text, -1), []int{len(text), len(text)}) {
		sentence := strings.TrimSpace(text[start:loc[0]])
		if loc[0] < len(text) {
			sentence = strings.TrimSpace(text[start:loc[1]])
		}
		start = loc[1]
		if sentence == "" || underline.MatchString(sentence) {
			continue
		}
		said := sentence
		if first {
			said, first = label.ReplaceAllString(sentence, ""), false
		}
		n := 8 * lexicon.Coverage(terms, said)
		if t != Any && Holds(t, sentence) {
			n += 4
		}
		// A heading names what follows; the sentence under it that holds
		// as many of the words tells it.
		if heading(sentence, text[loc[1]:]) {
			n -= 2
		}
		q := isQuestion(sentence)
		if q {
			n-- // a statement holding as many words wins
		}
		if n > bestN {
			best, bestN, question = sentence, n, q
		}
	}
	return best, question
}

// isQuestion reports whether sentence ends in a question mark, past
// closing quotes and a bracketed aside ("…make it?" [shares a photo]).
func isQuestion(sentence string) bool {
	s := strings.TrimSpace(sentence)
	if strings.HasSuffix(s, "]") {
		if i := strings.LastIndexByte(s, '['); i > 0 {
			s = strings.TrimSpace(s[:i])
		}
	}
	s = strings.TrimRight(s, "\"'’”)» ")
	return strings.HasSuffix(s, "?")
}

// heading reports whether sentence, followed by rest, is a heading: a
// Markdown one, or a line over an underline.
func heading(sentence, rest string) bool {
	if strings.HasPrefix(sentence, "#") {
		return true
	}
	next, _, _ := strings.Cut(strings.TrimLeft(rest, " \t"), "\n")
	return underline.MatchString(strings.TrimSpace(next))
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

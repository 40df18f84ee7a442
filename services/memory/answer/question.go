// Package answer is extractive answering's text work: what kind of answer
// a question asks for (question.go), whether a text holds one or lacks a
// name the question asks about, and which sentence of a note to quote
// (sentence.go). Pure text: it knows nothing of items or search.
package answer

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
)

// What a question asks for, read from its first words, so that recall
// quotes first the note that holds that kind of answer: a time for
// "when", a person for "who", a number for "how many", a place for
// "where". It orders notes that already match the question's words; it
// never makes an unrelated note relevant.
type Type int

const (
	Any Type = iota
	Time
	Person
	Number
	Place
)

func QuestionType(q string) Type {
	ws := lexicon.Words(q)
	for i, w := range ws {
		next := ""
		if i+1 < len(ws) {
			next = ws[i+1]
		}
		switch w {
		case "when":
			return Time
		case "who", "whom", "whose":
			return Person
		case "where":
			return Place
		case "how":
			switch next {
			case "many", "much", "long", "often", "big", "fast", "old", "large":
				return Number
			}
		case "what", "which":
			switch next {
			case "time", "day", "date", "weekday":
				return Time
			}
			if placeKinds[next] {
				return Place
			}
			if slices.Contains(ws[i+1:], "name") || slices.Contains(ws[i+1:], "names") {
				// "What's my dentist's name?", "What is my dog's name?":
				// a name is asked for.
				return Person
			}
		}
		if i >= 2 {
			break // the wh-word leads the question
		}
	}
	return Any
}

var (
	clockTime = regexp.MustCompile(`\b\d{1,2}[:.]\d{2}\b|\b\d{1,2} ?(?:am|pm)\b|\b(?:19|20)\d{2}\b`)
	number    = regexp.MustCompile(`\d`)
	placeWord = map[string]bool{"in": true, "at": true, "on": true, "under": true, "behind": true, "from": true,
		"folder": true, "repository": true, "repo": true, "channel": true, "drive": true, "room": true, "floor": true,
		"street": true, "bucket": true, "path": true, "cluster": true, "namespace": true, "region": true}
	// timeBefore are the place words that as often come before a time
	// ("on 14 March", "at 7:30"), which is no place. Not "in": "I moved to
	// Madrid in 2025" holds no other word of a place, and a correction
	// answers for a place by it.
	timeBefore  = map[string]bool{"at": true, "on": true}
	numberWords = map[string]bool{"one": true, "two": true, "three": true, "four": true, "five": true, "six": true,
		"seven": true, "eight": true, "nine": true, "ten": true, "eleven": true, "twelve": true, "thirteen": true,
		"fourteen": true, "fifteen": true, "sixteen": true, "seventeen": true, "eighteen": true, "nineteen": true,
		"twenty": true, "twice": true, "once": true, "half": true, "dozen": true}
)

// placeKinds are the words after "what" or "which" that ask for a
// place: "What city am I based in?".
var placeKinds = map[string]bool{"city": true, "town": true, "country": true, "state": true, "village": true,
	"place": true, "neighborhood": true, "neighbourhood": true}

// Holds reports whether text holds the kind of answer t asks for.
func Holds(t Type, text string) bool {
	switch t {
	case Time:
		if clockTime.MatchString(text) {
			return true
		}
		for _, w := range lexicon.Words(text) {
			if lexicon.TimeWord(w) {
				return true
			}
		}
	case Number:
		if number.MatchString(text) {
			return true
		}
		for _, w := range lexicon.Words(text) {
			if numberWords[w] {
				return true
			}
		}
	case Person:
		// A month or a day is no one: "my appointment got pushed to
		// March 21" names no dentist.
		return slices.ContainsFunc(names(text), func(n string) bool { return !lexicon.TimeWord(n) })
	case Place:
		words := lexicon.Words(text)
		for i, w := range words {
			if placeWord[w] && !(timeBefore[w] && i+1 < len(words) && (lexicon.TimeWord(words[i+1]) || number.MatchString(words[i+1]))) {
				return true
			}
		}
	}
	return false
}

// names returns the capitalised words of text that are not the first of a
// sentence and not all capitals (an acronym): "Leo", "Grandma", "Porto".
// They name someone or something; a note that lacks a name the question
// asks about is about someone else.
func names(text string) []string {
	var out []string
	for _, n := range namesAt(text) {
		out = append(out, n.name)
	}
	return out
}

// name is a name of a text and the place of its word among the text's
// words: consecutive names are one ("General Data Protection Regulation").
type name struct {
	name string
	at   int
	// or: the name is said with the one before it, "Jon and Gina", and a
	// note holding either holds both: one turn tells what one of them
	// did of what "both" did.
	or bool
}

func namesAt(text string) []name {
	var out []name
	start := true
	fields := strings.Fields(text)
	for i, f := range fields {
		w, _ := possessor(f)
		if w != "" && !start {
			r, n := utf8.DecodeRuneInString(w)
			if unicode.IsUpper(r) && n < len(w) && strings.ToLower(w[n:]) == w[n:] && utf8.RuneCountInString(w) > 1 {
				or := len(out) > 0 && out[len(out)-1].at == i-2 && (fields[i-1] == "and" || fields[i-1] == "or" || fields[i-1] == "&")
				out = append(out, name{strings.ToLower(w), i, or})
			}
		}
		start = strings.ContainsAny(f[len(f)-1:], ".!?:")
	}
	return out
}

// capitalised returns text's words that start with a capital letter,
// lowercased, wherever they stand.
func capitalised(text string) []string {
	var out []string
	for _, f := range strings.Fields(text) {
		w := trimWord(f)
		if r, _ := utf8.DecodeRuneInString(w); w != "" && unicode.IsUpper(r) {
			out = append(out, strings.ToLower(w))
		}
	}
	return out
}

func trimWord(f string) string {
	return strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// possessor returns a field's word without its punctuation and without a
// possessive "'s" ("Priya's," is Priya), and whether it had one.
func possessor(f string) (string, bool) {
	w := trimWord(f)
	if base, ok := strings.CutSuffix(w, "'s"); ok {
		return base, true
	}
	return strings.CutSuffix(w, "’s")
}

// acronyms returns the words of text written in capitals only, of two
// letters or more ("GDPR", "ÖL"), as lowercase runes.
func acronyms(text string) [][]rune {
	var out [][]rune
	for _, f := range strings.Fields(text) {
		w := trimWord(f)
		if utf8.RuneCountInString(w) < 2 || strings.ToUpper(w) != w || strings.ToLower(w) == w {
			continue
		}
		if strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) < 0 {
			out = append(out, []rune(strings.ToLower(w)))
		}
	}
	return out
}

func lacksName(qn []name, text string) bool {
	if len(qn) == 0 {
		return false
	}
	have := lexicon.Words(text)
	capital := capitalised(text)
	missing := map[int]bool{} // by index in qn
	for i, n := range qn {
		stem := lexicon.Stem(n.name)
		found := false
		for _, w := range have {
			if lexicon.Stem(w) == stem {
				found = true
				break
			}
		}
		for _, w := range capital {
			if found {
				break
			}
			found = lexicon.Near(stem, lexicon.Stem(w))
		}
		if !found {
			missing[i] = true
		}
	}
	for i, n := range qn {
		if n.or && missing[i] != missing[i-1] {
			delete(missing, i)
			delete(missing, i-1)
		}
	}
	if len(missing) == 0 {
		return addressedOnly(qn, text)
	}
	for _, acr := range acronyms(text) {
		for at := 0; at+len(acr) <= len(qn); at++ {
			run := qn[at : at+len(acr)]
			if initialsOf(run, acr) && coversAll(missing, at, at+len(acr)) {
				return false
			}
		}
	}
	return true
}

// initialsOf reports whether acr is the initials of run, whose names are
// consecutive words.
func initialsOf(run []name, acr []rune) bool {
	for i, n := range run {
		if i > 0 && n.at != run[i-1].at+1 {
			return false
		}
		if r, _ := utf8.DecodeRuneInString(n.name); r != acr[i] {
			return false
		}
	}
	return true
}

// coversAll reports whether every index of missing is in [from, to).
func coversAll(missing map[int]bool, from, to int) bool {
	for i := range missing {
		if i < from || i >= to {
			return false
		}
	}
	return true
}

// addressedOnly reports whether every name of the question that text
// holds is one it speaks to, not of ("Thanks, Caroline! I ran a charity
// race" is someone else's race): followed by punctuation, and said after
// a greeting, first in a quote, or after a comma at a sentence's end.
func addressedOnly(qn []name, text string) bool {
	fields := strings.Fields(text)
	spokenOf := false
	for _, n := range qn {
		for i, f := range fields {
			w, _ := possessor(f)
			w = strings.ToLower(w)
			if w == "" || !lexicon.Near(lexicon.Stem(n.name), lexicon.Stem(w)) {
				continue
			}
			if !lexicon.Addressed(fields, i) {
				spokenOf = true
			}
		}
	}
	return !spokenOf
}

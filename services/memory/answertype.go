package memory

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What a question asks for, read from its first words, so that recall
// quotes first the note that holds that kind of answer: a time for
// "when", a person for "who", a number for "how many", a place for
// "where". It orders notes that already match the question's words; it
// never makes an unrelated note relevant.
type answerType int

const (
	answerAny answerType = iota
	answerTime
	answerPerson
	answerNumber
	answerPlace
)

func questionType(q string) answerType {
	ws := words(q)
	for i, w := range ws {
		next := ""
		if i+1 < len(ws) {
			next = ws[i+1]
		}
		switch w {
		case "when":
			return answerTime
		case "who", "whom", "whose":
			return answerPerson
		case "where":
			return answerPlace
		case "how":
			switch next {
			case "many", "much", "long", "often", "big", "fast", "old", "large":
				return answerNumber
			}
		case "what", "which":
			switch next {
			case "time", "day", "date", "weekday":
				return answerTime
			}
		}
		if i >= 2 {
			break // the wh-word leads the question
		}
	}
	return answerAny
}

var (
	timeWords = map[string]bool{"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true,
		"saturday": true, "sunday": true, "mondays": true, "tuesdays": true, "wednesdays": true, "thursdays": true,
		"fridays": true, "saturdays": true, "sundays": true, "january": true, "february": true, "march": true,
		"april": true, "may": true, "june": true, "july": true, "august": true, "september": true, "october": true,
		"november": true, "december": true, "daily": true, "weekly": true, "monthly": true, "yearly": true,
		"nightly": true, "morning": true, "evening": true, "noon": true, "midnight": true, "tonight": true,
		"tomorrow": true, "yesterday": true, "week": true, "weeks": true, "month": true, "year": true, "every": true}
	clockTime = regexp.MustCompile(`\b\d{1,2}[:.]\d{2}\b|\b\d{1,2} ?(?:am|pm)\b|\b(?:19|20)\d{2}\b`)
	number    = regexp.MustCompile(`\d`)
	placeWord = map[string]bool{"in": true, "at": true, "on": true, "under": true, "behind": true, "from": true,
		"folder": true, "repository": true, "repo": true, "channel": true, "drive": true, "room": true, "floor": true,
		"street": true, "bucket": true, "path": true, "cluster": true, "namespace": true, "region": true}
	numberWords = map[string]bool{"one": true, "two": true, "three": true, "four": true, "five": true, "six": true,
		"seven": true, "eight": true, "nine": true, "ten": true, "twice": true, "once": true, "half": true, "dozen": true}
)

// holdsAnswer reports whether text holds the kind of answer t asks for.
func holdsAnswer(t answerType, text string) bool {
	switch t {
	case answerTime:
		if clockTime.MatchString(text) {
			return true
		}
		for _, w := range words(text) {
			if timeWords[w] {
				return true
			}
		}
	case answerNumber:
		if number.MatchString(text) {
			return true
		}
		for _, w := range words(text) {
			if numberWords[w] {
				return true
			}
		}
	case answerPerson:
		return len(names(text)) > 0
	case answerPlace:
		for _, w := range words(text) {
			if placeWord[w] {
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
	start := true
	for _, f := range strings.Fields(text) {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
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

// lacksName reports whether text misses a name the question asks about,
// allowing a typo. Names the note holds only as their initials ("General
// Data Protection Regulation" in a note saying "GDPR") are not missing.
func lacksName(question, text string) bool {
	qn := names(question)
	if len(qn) == 0 {
		return false
	}
	have := words(text)
	var missing []string
	for _, n := range qn {
		found := false
		for _, w := range have {
			if near(stem(n), stem(w)) {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return false
	}
	// The names' initials, in the question's order: a note word that is
	// the initials of a run of names holding every missing one stands
	// for them.
	initials := make([]byte, len(qn))
	for i, n := range qn {
		initials[i] = n[0]
	}
	for _, w := range have {
		if len(w) < 2 || len(w) < len(missing) {
			continue
		}
		for at := 0; at+len(w) <= len(initials); at++ {
			if string(initials[at:at+len(w)]) != w {
				continue
			}
			run := qn[at : at+len(w)]
			if !slices.ContainsFunc(missing, func(n string) bool { return !slices.Contains(run, n) }) {
				return false
			}
		}
	}
	return true
}

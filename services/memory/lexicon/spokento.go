package lexicon

import (
	"strings"
	"unicode"
)

// greetings are the words a name is said after when someone is spoken
// to: "Hey Gina", "Thanks, Melanie".
var greetings = map[string]bool{"hey": true, "hi": true, "hello": true, "thanks": true, "thank": true, "dear": true,
	"congrats": true, "congratulations": true, "bye": true, "morning": true, "oh": true, "wow": true, "woah": true,
	"yes": true, "yeah": true, "yep": true, "sorry": true, "ok": true, "okay": true, "night": true, "welcome": true,
	"woohoo": true, "yay": true, "hooray": true, "aw": true, "aww": true, "ah": true, "whoa": true, "hiya": true, "cheers": true}

// Addressed reports whether fields[i], a name, is someone spoken to.
func Addressed(fields []string, i int) bool {
	f := strings.TrimRight(fields[i], "\"”’')")
	if f == "" || !strings.ContainsAny(f[len(f)-1:], ",!.?") {
		return false
	}
	if strings.HasPrefix(f, "\"") || strings.HasPrefix(f, "“") {
		return true
	}
	if i == 0 {
		return false
	}
	prev := fields[i-1]
	// After a comma only at a sentence's end: "The dog, Biscuit, is" is
	// about Biscuit, "That sounds great, Mel!" is to her.
	return greetings[strings.ToLower(TrimWord(prev))] || strings.HasSuffix(prev, ",") && strings.ContainsAny(f[len(f)-1:], "!.?")
}

// SplitNamesSpokenTo is text without the names it speaks to rather than
// of ("Thanks, Maya!"), and those names as the text writes them.
func SplitNamesSpokenTo(text string) (rest string, names []string) {
	fields := strings.Fields(text)
	for i, f := range fields {
		w := TrimWord(f)
		if w == "" || !unicode.IsUpper([]rune(w)[0]) {
			continue
		}
		if lw := strings.ToLower(w); greetings[lw] || Stopword(lw) || !Addressed(fields, i) {
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

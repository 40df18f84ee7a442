package answer

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
)

// LacksPerson reports whether text is about someone other than the one
// the question asks about, as LacksName does for names: asked about "my
// mom" ("When is Mom's birthday?"), a note naming no mother or parent
// ("My birthday is August 21") does not answer; asked about me alone
// ("Am I allergic to cats?"), neither does a note only about another
// ("My wife is allergic to cats", "Priya's birthday is October 3", "The
// kids' dentist is Dr. Wong"). A note about no one ("The wifi is on the
// router") may answer either.
func LacksPerson(question, text string) bool {
	qw := lexicon.Words(question)
	asked := relativesAsked(question, qw)
	tw := lexicon.Words(text)
	if len(asked) > 0 {
		for _, w := range tw {
			for _, a := range asked {
				if lexicon.SameRelative(a, w) {
					return false
				}
			}
		}
		return true
	}
	self := false
	for _, w := range qw {
		self = self || lexicon.FirstPersonWord(w)
	}
	if !self {
		return false
	}
	return aboutAnother(text, tw, len(personalNames(question)) > 0)
}

// relativesAsked are the relation words a question asks about: said
// after "my" or "our" ("my mother's birthday"), or as a name ("Mom").
func relativesAsked(question string, qw []string) []string {
	var out []string
	for i, w := range qw {
		if lexicon.Relative(w) && (i > 0 && (qw[i-1] == "my" || qw[i-1] == "our")) {
			out = append(out, w)
		}
	}
	for _, n := range namesAt(question) {
		if lexicon.Relative(n.name) {
			out = append(out, n.name)
		}
	}
	return out
}

// aboutAnother reports whether a note speaks only of someone else: it
// names a relative or a person's possession ("Priya's") and holds no word
// of its writer's own ("I", "me", "we", "our", "user") but "my" or "our"
// before a relative ("My wife is allergic to cats"). A possession is not
// counted when the question names people (named), whose notes LacksName
// reads: "What did Ana tell me?" of "Ana's plan is delayed".
func aboutAnother(text string, tw []string, named bool) bool {
	other := false
	for i, w := range tw {
		switch {
		case (w == "my" || w == "our") && i+1 < len(tw) && lexicon.Relative(tw[i+1]):
			other = true
		case w == "user" && i+2 < len(tw) && tw[i+1] == "s" && lexicon.Relative(tw[i+2]):
			other = true
		case lexicon.FirstPersonWord(w) || ownWords[w]:
			return false
		case lexicon.Relative(w):
			other = true
		}
	}
	return other || !named && possessiveName(text)
}

// ownWords say a note is its writer's beside the first person singular:
// "we", "our", and "user", as an assistant writes of the one it serves.
var ownWords = map[string]bool{"we": true, "us": true, "our": true, "ours": true, "ourselves": true, "user": true}

// possessiveName reports whether text says a capitalised name's
// possession ("Priya's birthday"), the name not a relation word.
func possessiveName(text string) bool {
	for _, f := range strings.Fields(text) {
		w := strings.TrimLeft(f, "\"“(")
		base, ok := strings.CutSuffix(strings.TrimRight(w, ".,;:!?)\"”"), "'s")
		if !ok {
			base, ok = strings.CutSuffix(strings.TrimRight(w, ".,;:!?)\"”"), "’s")
		}
		if r, _ := utf8.DecodeRuneInString(base); ok && unicode.IsUpper(r) && !lexicon.Relative(strings.ToLower(base)) {
			return true
		}
	}
	return false
}

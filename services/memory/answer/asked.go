package answer

import (
	"slices"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
)

// Asked is what a question asks about, read once for the many notes recall
// weighs against it: the names it asks about, the kind of answer it asks
// for and the stems of its other words.
type Asked struct {
	names []name   // capitalised words past a sentence's first
	t     Type     // the kind of answer asked for
	rest  []string // stems of the terms that are no name asked of
}

// Ask reads a question.
func Ask(question string) Asked {
	a := Asked{names: namesAt(question), t: QuestionType(question)}
	for _, w := range lexicon.Terms(question) {
		if !slices.ContainsFunc(a.names, func(n name) bool { return n.name == w }) {
			a.rest = append(a.rest, lexicon.Stem(w))
		}
	}
	return a
}

// LacksNameAt is LacksName for a text told at a time: the month it was
// told in is a name it holds. A conversation's turn keeps its date apart
// from its words, and "When did Caroline go to a pride parade in
// August?" asks of a turn told in August.
func (a Asked) LacksNameAt(text string, at time.Time) bool {
	qn := a.names
	if !at.IsZero() {
		month := strings.ToLower(at.Month().String())
		isMonth := func(n name) bool { return n.name == month || n.name == month[:3] }
		if slices.ContainsFunc(qn, isMonth) {
			qn = slices.DeleteFunc(slices.Clone(qn), isMonth)
		}
	}
	return lacksName(qn, text)
}

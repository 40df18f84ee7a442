package answer

import (
	"slices"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
)

// Asked is what a question asks about, read once for the many notes recall
// weighs against it: the names it asks about, the relatives, whether it
// asks of the one who wrote it, the attributes.
type Asked struct {
	names     []name              // capitalised words past a sentence's first, not relation words
	relatives [][]string          // relatives and pets asked about (relativesAsked)
	said      []string            // relation words a question of having says ("Do I have a sister?")
	inLaw     bool                // whether it asks of an in-law ("my mother-in-law")
	self      bool                // a word of the first person singular
	attrs     map[string][]string // attributes by head (attributes)
	families  family              // of the attributes asked (families)
	t         Type                // the kind of answer asked for
	rest      []string            // stems of the terms that name no one asked of
}

// Ask reads a question.
func Ask(question string) Asked {
	qw := lexicon.Words(question)
	all := namesAt(question)
	a := Asked{
		names:     slices.DeleteFunc(slices.Clone(all), func(n name) bool { return lexicon.Relative(n.name) }),
		relatives: relativesAsked(qw, all),
		self:      slices.ContainsFunc(qw, lexicon.FirstPersonWord),
		attrs:     attributes(qw),
		families:  families(qw),
	}
	if slices.ContainsFunc(qw, func(w string) bool { return w == "have" || w == "has" || w == "had" }) {
		// "Do I have a sister?", "How many kids do I have?": whether I
		// have one is asked, not "Am I a father?".
		for _, w := range qw {
			if lexicon.Relative(w) {
				a.said = append(a.said, w)
			}
		}
	}
	for i, w := range qw {
		a.inLaw = a.inLaw || lexicon.Relative(w) && inLaw(qw, i)
	}
	a.t = QuestionType(question)
	for _, w := range lexicon.Terms(question) {
		if !lexicon.Someone(w) && !slices.ContainsFunc(all, func(n name) bool { return n.name == w }) {
			a.rest = append(a.rest, lexicon.Stem(w))
		}
	}
	if slices.Contains(qw, "where") && (slices.Contains(qw, "live") || slices.Contains(qw, "lives")) {
		// Where one lives is a home address, not an email one.
		a.attrs["address"] = append(a.attrs["address"], "home")
	}
	return a
}

// OfPeople reports whether the question asks of the user or of their
// relatives or pets: whether the names memory gives them (RelativeNames)
// tell LacksPerson anything.
func (a Asked) OfPeople() bool { return a.self || len(a.relatives) > 0 }

// AsksOf reports whether w is a relative or pet the question asks of
// ("sister" in "What tablet does my sister use?").
func (a Asked) AsksOf(w string) bool {
	return slices.ContainsFunc(a.relatives, func(either []string) bool { return slices.Contains(either, w) })
}

// LacksName reports whether text misses a name the question asks about,
// allowing a typo in a capitalised word: "Jhon" is John, "joined" is not.
// Names the note holds only as their initials ("General Data Protection
// Regulation" in a note saying "GDPR": an acronym of the question's
// consecutive names, every missing one among them) are not missing.
// Relation words said as names ("Mom") are LacksPerson's.
func (a Asked) LacksName(text string) bool { return lacksName(a.names, text) }

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

// OnlyWhom reports whether text holds of the question only the relatives
// or pets it asks of and not the kind of answer asked for: "My father
// still smokes" for "When is my dad's birthday?". A note holding them
// alone may still answer with the kind of answer ("Dad was born on 5
// May"), or when the question asks for no kind. The names asked about
// are read so in a loose note (loose), not in a conversation's turn: "My
// wife Maria is vegetarian" does not answer "Where does Maria work?", but
// on LoCoMo's design half as a conversation reading turns so cost two
// first citations of 308, turns that answer by the turn before them.
func (a Asked) OnlyWhom(text string, loose bool) bool {
	if a.t == Any || len(a.rest) == 0 || len(a.relatives) == 0 && (!loose || len(a.names) == 0) {
		return false
	}
	for _, w := range lexicon.Words(text) {
		if slices.Contains(a.rest, lexicon.Stem(w)) {
			return false
		}
	}
	return !Holds(a.t, text)
}

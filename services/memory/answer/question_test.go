package answer

import (
	"slices"
	"testing"
	"time"
)

func TestQuestionType(t *testing.T) {
	for q, want := range map[string]Type{
		"when does the on-call rotation change": Time,
		"what time is standup now":              Time,
		"who is our landlord":                   Person,
		"how many approvals does a PR need":     Number,
		"how long are logs kept":                Number,
		"where are ADRs kept":                   Place,
		"which fonts does the brand use":        Any,
		"what city am I based in":               Place,
		"which country did Caroline visit":      Place,
		"how do I submit expenses":              Any,
	} {
		if got := QuestionType(q); got != want {
			t.Errorf("QuestionType(%q) = %d, want %d", q, got, want)
		}
	}
	if !Holds(Time, "The pharmacy closes early today.") {
		t.Error("today is a time")
	}
	if !Holds(Time, "The standup is at 9:30.") || Holds(Time, "The brand uses Inter.") {
		t.Error("a clock time is a time, a font is not")
	}
	if !Holds(Person, "The lead is Priya Raman.") || Holds(Person, "Logs go to the bucket.") {
		t.Error("a capitalised name is a person; a sentence's first word is not")
	}
}

func TestNames(t *testing.T) {
	if got := names("What is Lena's favourite restaurant? The PM knows."); !slices.Equal(got, []string{"lena"}) {
		t.Errorf("names = %q, want [lena]: not the first word of a sentence, not an acronym", got)
	}
	if !Ask("what is Lena's favourite restaurant").LacksNameAt("I reserved a table at my favorite restaurant.", time.Time{}) {
		t.Error("a note without Lena does not answer a question about Lena")
	}
	if Ask("when is Mayas birthday").LacksNameAt("Maya's birthday is on 3 March.", time.Time{}) {
		t.Error("a name up to a typo is the same name")
	}
	if !Ask("why did John join a church").LacksNameAt("Maria said she joined a nearby church.", time.Time{}) {
		t.Error("a word a typo away from a name (joined, John) is not the name")
	}
	if Ask("why did John join a church").LacksNameAt("Jhon joined a nearby church.", time.Time{}) || Ask("why did John join a church").LacksNameAt("john joined one.", time.Time{}) {
		t.Error("a typo of a name in capitals, or the name in lower case, is the name")
	}
	gdpr := "how fast must we handle a deletion request under the General Data Protection Regulation"
	if Ask(gdpr).LacksNameAt("Data deletion requests are completed within 30 days (GDPR).", time.Time{}) {
		t.Error("a note holding the names' initials (GDPR) holds the names")
	}
	if !Ask(gdpr).LacksNameAt("Deletion requests go to the DPO within 30 days.", time.Time{}) {
		t.Error("initials that are not the names' do not stand for them")
	}
	if !Ask("what did Ada Lovelace tell Grace").LacksNameAt("AL told her so.", time.Time{}) {
		t.Error("initials stand for the names they are of, not for another (Grace)")
	}
	if Ask("who runs the Ökologische Landwirtschaft project").LacksNameAt("The ÖL project is run by Jana.", time.Time{}) {
		t.Error("initials beyond ASCII stand for their names too")
	}
	// Only a word in capitals is initials, of names next to each other.
	for question, note := range map[string]string{
		"where do Ava and Tom live":        "Ben lives at 12 Oak Street.",
		"what did Mia tell Emma":           "Ben told me about the trip.",
		"what did Lena say to Tom in Oslo": "Lena said to Tom: meet at noon.",
		"what did Mia tell Emma about it":  "ME is a chronic illness.",
	} {
		if !Ask(question).LacksNameAt(note, time.Time{}) {
			t.Errorf("%q: a note lacking the names (%q) holds them", question, note)
		}
	}
}

// A note that only speaks to the person a question is about tells of its
// speaker, not of them; one that speaks of them, or of them in apposition,
// does.
func TestLacksNameSpokenTo(t *testing.T) {
	for note, lacks := range map[string]bool{
		`Melanie said, "Thanks, Caroline! I ran a charity race for mental health."`: true,
		`Jon said, "Hey Gina, congrats on the store! I lost my job at the bank."`:   true,
		`Melanie said, "That charity race sounds great, Caroline!"`:                 true,
		`Caroline said, "I ran a charity race last Saturday, Melanie!"`:             false,
		`Melanie said, "Caroline ran a charity race and I cheered."`:                false,
		`The runner, Caroline, finished the charity race in an hour.`:               false,
		`Melanie said, "Yes, Caroline! And Caroline's charity race raised a lot."`:  false,
	} {
		if got := Ask("What did Caroline do after the charity race?").LacksNameAt(note, time.Time{}); got != lacks {
			t.Errorf("%s: LacksName %v, want %v", note, got, lacks)
		}
	}
	if Ask("What did Melanie tell Caroline?").LacksNameAt(`Melanie said, "Caroline, you should rest."`, time.Time{}) {
		t.Error("the speaker named with the one spoken to is not missing")
	}
}

// A turn told in August holds "August" though its words do not; told in
// July it does not, and a name it lacks is still missing.
func TestLacksNameAtTheMonthItWasTold(t *testing.T) {
	aug := time.Date(2023, 8, 14, 13, 0, 0, 0, time.UTC)
	turn := "Caroline: I went to a pride parade last Friday!"
	for _, c := range []struct {
		question string
		at       time.Time
		lacks    bool
	}{
		{"When did Caroline attend a pride parade in August?", aug, false},
		{"When did Caroline attend a pride parade in Aug?", aug, false},
		{"When did Caroline attend a pride parade in August?", aug.AddDate(0, -1, 0), true},
		{"When did Caroline attend a pride parade in August?", time.Time{}, true},
		{"When did Melanie attend a pride parade in August?", aug, true},
	} {
		if got := Ask(c.question).LacksNameAt(turn, c.at); got != c.lacks {
			t.Errorf("%q told %s: LacksNameAt %v, want %v", c.question, c.at.Format("2 January"), got, c.lacks)
		}
	}
}

// A question about two people ("Did Jon and Gina both dance?") is
// answered one turn at a time: a note holding either holds both; a
// question naming them apart still needs each.
func TestLacksNameOfEitherOfTwo(t *testing.T) {
	note := `Gina said, "I used to compete in a few dance competitions."`
	for q, lacks := range map[string]bool{
		"Did Jon and Gina both participate in dance competitions?":  false,
		"Did Jon or Gina compete in dance competitions?":            false,
		"Did Jon and Tim both participate in dance competitions?":   true,
		"Did Gina beat Jon in the dance competitions?":              true,
		"Which dance competitions did Gina enter before Jon moved?": true,
	} {
		if got := Ask(q).LacksNameAt(note, time.Time{}); got != lacks {
			t.Errorf("%q: LacksName %v, want %v", q, got, lacks)
		}
	}
}

func TestAPlaceIsNoDate(t *testing.T) {
	for text, want := range map[string]bool{
		"My sister Ana has a birthday on 14 March.": false,
		"The standup is at 9:30.":                   false,
		"My brother lives in Ohio.":                 true,
		"The keys are on the shelf.":                true,
		"It is in room 4.":                          true,
	} {
		if got := Holds(Place, text); got != want {
			t.Errorf("Holds(Place, %q) = %v, want %v", text, got, want)
		}
	}
}

func TestANameIsAskedOf(t *testing.T) {
	for q, want := range map[string]Type{"What's my dentist's name?": Person, "What is the name of my dog?": Person,
		"What are my kids' names?": Person, "What is my favourite band?": Any} {
		if got := QuestionType(q); got != want {
			t.Errorf("QuestionType(%q) = %v, want %v", q, got, want)
		}
	}
	if Holds(Person, "My appointment got pushed to March 21.") {
		t.Error("March is taken for a person")
	}
}

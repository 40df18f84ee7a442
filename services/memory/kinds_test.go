package memory_test

import "testing"

// A question names a kind of thing ("job", "pet", "manager") where the
// note names the thing or the role in other words ("I work as a nurse",
// "My dog Rex", "My boss"): recall answers from the note, and a kind
// memory holds nothing of is still not known.
func TestRecallAnswersAKindFromItsMembers(t *testing.T) {
	svc := learned(t,
		"I work as a nurse at Saint Mary's hospital.",
		"I live in Portland, Oregon.",
		"My boss is Karen Lee.",
		"My wife Anna is a teacher.",
		"My dog Rex is a golden retriever.",
		"My favourite band is Radiohead.",
		"My daughter goes to Lincoln Elementary.",
		"I drive a blue Honda Civic.",
		"My GP is Dr. Okafor.",
		"My son Leo has piano lessons on Thursdays at 4.",
	)
	recallAnswers(t, svc, true, map[string]string{
		"What do I do for a living?":  "nurse",
		"What is my job?":             "nurse",
		"Who is my employer?":         "nurse",
		"Who is my manager?":          "Karen",
		"What does my partner do?":    "teacher",
		"What pet do I have?":         "Rex",
		"What music do I like?":       "Radiohead",
		"Who is my husband?":          "",
		"What are my parents' names?": "",
		"Who is my doctor?":           "Okafor",
		"Who is my dentist?":          "",
	})
}

// A member word that names something else in its note answers for no
// kind: a "business partner" is no wife, a "photo album" no music.
func TestAKindIsNotItsNamesake(t *testing.T) {
	svc := learned(t,
		"My business partner Dave handles sales.",
		"The photo album from Italy is in the attic.",
		"I live in Austin.",
	)
	recallAnswers(t, svc, false, map[string]string{
		"What does my wife do?": "",
		"What music do I like?": "",
	})
}

// A measure asked by its adjective or verb ("How tall am I?") is answered
// by a note telling it by its noun, and the other way round.
func TestAMeasureByItsAdjectiveOrNoun(t *testing.T) {
	svc := learned(t, "My height is 182 cm.", "I weigh 80 kg.", "My shoe size is 10.5.")
	recallAnswers(t, svc, true, map[string]string{
		"How tall am I?":       "182",
		"What is my height?":   "182",
		"What is my weight?":   "80 kg",
		"How much do I weigh?": "80 kg",
	})
}

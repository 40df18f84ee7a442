package memory_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// A question about me is not answered by a note about someone else in
// my life, nor a question about them by a note about me: "My wife is
// allergic to cats" does not say whether I am, "My birthday is August 21"
// is not my mother's. Each is still answered from its own note.
func TestWhoseNoteItIs(t *testing.T) {
	svc := learned(t,
		"I'm allergic to penicillin.",
		"My wife is allergic to cats.",
		"My shoe size is 10.5.",
		"My son wears size 4 shoes.",
		"My birthday is August 21.",
		"Mom's birthday is on March 3.",
		"I quit smoking in 2019.",
		"My father still smokes.",
		"The kids' dentist is Dr. Wong.",
		"In 2020 I moved to San Francisco.",
		"My parents still live in Ohio.",
		"My name is Alex Rivera.",
	)
	recallAnswers(t, svc, false, map[string]string{
		"Am I allergic to cats?":           "penicillin",
		"Is my wife allergic to anything?": "cats",
		"What size shoes do I wear?":       "10.5",
		"What shoe size does my son wear?": "size 4",
		"When is my mother's birthday?":    "March 3",
		"When is Mom's birthday?":          "March 3",
		"When is my birthday?":             "August 21",
		"When is my dad's birthday?":       "",
		"Does my dad smoke?":               "still smokes",
		"Who is my dentist?":               "",
		"Who is the kids' dentist?":        "Dr. Wong",
		"Where do I live?":                 "San Francisco",
		"Where do my parents live?":        "Ohio",
		"Who am I?":                        "Alex Rivera",
	})
}

// "Who am I?" is answered by what says who I am ("I'm Dana", "My name
// is Alex"), not by my manager's name.
func TestWhoAmI(t *testing.T) {
	for _, self := range []string{"I'm Dana, a backend engineer who works mostly in Go.", "My name is Dana Reyes."} {
		svc := learned(t, "My manager's name is Raj.", self, "My home is in Lisbon; I moved there from Porto in 2021.", "I prefer dark roast coffee.")
		recallAnswers(t, svc, false, map[string]string{"Who am I?": "Dana"})
	}
}

// A note telling another attribute of the same kind does not answer: my
// shoe size is no waist size, my favourite season no favourite book, my
// email address no home address; one that tells the attribute asked for
// in other words does ("landline number" for "telephone number"). Nor
// does one telling only another family of attribute: a network's name is
// no password, an account no password.
func TestAnotherAttributeIsNoAnswer(t *testing.T) {
	svc := learned(t,
		"My favorite color is green.",
		"My favorite season is autumn.",
		"My shoe size is 10.5.",
		"My GitHub username is arivera-dev.",
		"My email address is ana@example.com.",
		"Grandma's landline number is 040 5550178.",
		"The home Wi-Fi network is called Sunflower5G.",
		"My Netflix account is shared with my sister Carla.",
	)
	recallAnswers(t, svc, false, map[string]string{
		"What is the Wi-Fi password?":         "",
		"What's my Netflix password?":         "",
		"What is my favorite food?":           "",
		"What's my favorite book?":            "",
		"What is my favorite colour?":         "green",
		"What's my waist size?":               "",
		"What is my shoe size?":               "10.5",
		"What's my GitLab username?":          "",
		"What's my home address?":             "",
		"What's my email address?":            "ana@example.com",
		"What is grandma's telephone number?": "040",
	})
}

// A name is someone's: my cat's name is neither my dog's nor mine, and a
// pet's name may be the cat's.
func TestWhoseNameItIs(t *testing.T) {
	svc := learned(t, "My cat's name is Miso.", "I live in Lisbon.", "My sister Ana is a dentist.")
	recallAnswers(t, svc, false, map[string]string{
		"What is my dog's name?":    "",
		"What is my name?":          "",
		"What is my last name?":     "",
		"What is my cat's name?":    "Miso",
		"What is my pet's name?":    "Miso",
		"What is my sister's name?": "Ana",
	})
}

// A pet is asked of as a relative is: my cat's age is not my dog's, my
// dog's name is no parrot's, and a pet memory has named ("Our dog is a
// golden retriever named Biscuit") is held by notes naming it. My wife's
// boss is not mine; an email tells no home address.
func TestWhosePetItIs(t *testing.T) {
	svc := learned(t,
		"Our dog is a golden retriever named Biscuit.",
		"My cat Miso is 12 years old and has kidney disease.",
		"Biscuit eats grain-free kibble twice a day.",
		"My new boss is Tom Alvarez.",
		"I changed my personal email to alex.rivera.home@fastmail.example.",
	)
	recallAnswers(t, svc, false, map[string]string{
		"How old is my cat?":       "12 years",
		"What's my parrot's name?": "",
		"What is my pet's name?":   "Biscuit",
		"Who is my wife's boss?":   "",
		"Who is my boss?":          "Tom Alvarez",
		"What's my home address?":  "",
		"What's my email?":         "alex.rivera",
	})
	quotes := func(q string) string {
		res, err := svc.Recall(context.Background(), memory.RecallParams{Question: q}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		return res.Answer
	}
	if a := quotes("How old is my dog?"); strings.Contains(a, "12 years") {
		t.Errorf("How old is my dog? answered %q: the cat's age", a)
	}
	if a := quotes("What does my dog eat?"); !strings.Contains(a, "kibble") {
		t.Errorf("What does my dog eat? answered %q, want the kibble Biscuit eats", a)
	}
}

// A relative memory has named is held by notes naming them: "My manager
// is Priya Shah" makes "Priya's birthday is October 3" my manager's.
func TestARelativeByTheirName(t *testing.T) {
	svc := learned(t,
		"My manager is Priya Shah.",
		"Priya's birthday is October 3.",
		"My son Leo is 5.",
		"Leo's best friend is Noah.",
		"Correction: my manager is now Lisa, Priya left the company.",
		"My new phone number is 555-0199.",
	)
	recallAnswers(t, svc, false, map[string]string{
		"When is my manager's birthday?":    "October 3",
		"Who is my son's best friend?":      "Noah",
		"Who is my daughter's best friend?": "",
		"Who is my current manager?":        "Lisa",
		"What's my current number?":         "555-0199",
	})
}

// A relative named in one note is that relative in every other, wherever
// the naming note ranks: "Elena uses a Galaxy Tab" is my sister's tablet,
// not mine; only a note the caller may see names anyone for them.
func TestARelativeNamedElsewhereIsThatRelative(t *testing.T) {
	notes := []string{"My sister is Elena.", "Elena uses a Galaxy Tab.", "I like dark roast coffee.",
		"My manager is Priya Shah.", "Priya drives a Tesla.", "I drive a Honda Civic."}
	svc := learned(t, notes...)
	recallAnswers(t, svc, true, map[string]string{
		"What tablet does my sister use?": "Galaxy Tab",
		"What car does my manager drive?": "Tesla",
		"What car do I drive?":            "Civic",
	})
	recallAnswers(t, svc, false, map[string]string{"What tablet do I use?": ""})
	res, err := svc.Fetch(context.Background(), memory.FetchParams{Query: "What tablet does my sister use?"}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Text, "Galaxy Tab") {
		t.Errorf("fetch: got %+v, want Elena's tablet first", res.Hits)
	}

	// Forgotten, the note naming her names no one.
	ctx := context.Background()
	list, err := svc.Fetch(ctx, memory.FetchParams{Query: "Who is my sister?"}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	var naming []string
	for _, h := range list.Hits {
		if h.Text == "My sister is Elena." {
			naming = append(naming, h.ID)
		}
	}
	if gone, err := svc.Forget(ctx, memory.ForgetParams{IDs: naming}, anyone); err != nil || gone.Forgotten != 1 {
		t.Fatalf("forgetting the naming note %v: %+v, %v", naming, gone, err)
	}
	recallAnswers(t, svc, false, map[string]string{"What tablet does my sister use?": ""})

	// Named in a workspace the caller cannot see, Elena is no one's sister.
	scoped := mustOpenService(t)
	for ws, text := range map[string]string{"family": "My sister is Elena.", "work": "Elena uses a Galaxy Tab."} {
		if _, err := scoped.Learn(ctx, memory.LearnParams{Text: text, Workspace: ws}, limitedTo(ws)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		cc   contract.CallContext
		want bool
	}{{limitedTo("work"), false}, {contract.CallContext{Source: "cli", Workspaces: []string{"family", "work"}}, true}} {
		res, err := scoped.Recall(ctx, memory.RecallParams{Question: "What tablet does my sister use?"}, c.cc)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(res.Citations) > 0; got != c.want {
			t.Errorf("caller of %v: answered %q, want an answer: %v", c.cc.Workspaces, res.Answer, c.want)
		}
	}
}

// Asked whether I have a relative, a note about my relative is mine to
// answer with; asked about me alone, it is still someone else's.
func TestHavingARelativeIsMine(t *testing.T) {
	svc := learned(t, "My father is Bill.", "My sister has a dog named Rex.", "My wife is allergic to cats.",
		"My kids are Leo and Max.", "I work at Acme.")
	recallAnswers(t, svc, true, map[string]string{
		"Do I have kids?":          "Leo and Max",
		"How many kids do I have?": "Leo and Max",
		"Do I have a sister?":      "My sister",
		"Do I have any siblings?":  "My sister",
	})
	recallAnswers(t, svc, false, map[string]string{
		"Do I have a brother?":   "",
		"Do I have a dog?":       "",
		"Am I allergic to cats?": "",
		"Am I a father?":         "",
	})
}

// Another's pet or relative is not mine, nor is an in-law the relation
// alone: "My neighbor's cat is called Mochi" does not name my cat, "My
// best friend Jenna just got engaged" does not say I am, "My
// mother-in-law Carol" is not my mom, my wife's job as a nurse manager
// is no manager of mine.
func TestAnotherOnesIsNotMine(t *testing.T) {
	svc := learned(t, "My neighbor's cat is called Mochi.", "My best friend Jenna just got engaged.",
		"My mother-in-law Carol lives in Florida.", "My mom's name is Linda.", "Linda lives in Ohio and loves gardening.",
		"I like tea.", "We have a dog named Rex.", "My manager is Priya.", "My wife Sofia works at Globex as a nurse manager.")
	recallAnswers(t, svc, false, map[string]string{
		"What's my cat's name?": "",
		"Am I engaged?":         "",
	})
	recallAnswers(t, svc, true, map[string]string{
		"Where does my mom live?":           "Ohio",
		"Where does my mother-in-law live?": "Florida",
		"What is my neighbor's cat called?": "Mochi",
		"What is my dog's name?":            "Rex",
		"Who is my manager?":                "Priya",
	})
}

// A note holding only the name a question asks about, and not the kind
// of answer it asks for, answers nothing of it: Maria's diet is not where
// she works. A date is no place ("on 14 March"), so my sister's birthday
// is not where she lives either.
func TestANameAloneAnswersNothingOfIt(t *testing.T) {
	svc := learned(t, "My wife Maria is vegetarian.", "My sister Ana has a birthday on 14 March.", "I like tea.",
		"Tomas is vegetarian.", "My brother lives in Ohio.")
	recallAnswers(t, svc, false, map[string]string{
		"Where does Maria work?":      "",
		"Where does my sister live?":  "",
		"When is Tomas's birthday?":   "",
		"Is Maria vegetarian?":        "vegetarian",
		"When is Ana's birthday?":     "14 March",
		"Where does my brother live?": "Ohio",
	})
}

// Children named in a list ("Our kids are Ella (8) and Noah (5)") are the
// user's kids: Noah's allergy is not the user's, and is their son's.
func TestNamedInAListAreThoseRelatives(t *testing.T) {
	svc := learned(t, "Our kids are Ella (8) and Noah (5).", "Noah is allergic to tree nuts.", "I'm a pharmacist at CVS.")
	recallAnswers(t, svc, false, map[string]string{
		"Am I allergic to nuts?":        "",
		"Is my son allergic to nuts?":   "Noah",
		"Is Noah allergic to anything?": "Noah",
	})
}

// A name asked for is a person's or a pet's, never a month or a day: the
// note naming the dentist answers, not the one that names March; a note
// of my late dad names no one.
func TestANameIsNoMonth(t *testing.T) {
	svc := learned(t, "Dentist appointment on March 14 at 3pm with Dr. Lee.",
		"The dentist's office phoned: my appointment got pushed to March 21, same time.", "My dad passed away in 2018.", "I like tea.")
	recallAnswers(t, svc, false, map[string]string{
		"What's my dentist's name?": "Dr. Lee",
		"Who is my dentist?":        "Dr. Lee",
		"What is my dad's name?":    "",
	})
}

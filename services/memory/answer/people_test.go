package answer

import (
	"slices"
	"testing"
)

func TestLacksPerson(t *testing.T) {
	for _, c := range []struct {
		question, text string
		lacks          bool
	}{
		// Asked about a relative: the note must name them.
		{"When is my mother's birthday?", "My birthday is August 21.", true},
		{"When is my mother's birthday?", "Mom's birthday is on March 3.", false},
		{"When is Mom's birthday?", "My mother's birthday is March 3.", false},
		{"Where do my parents live?", "My dad lives in Tucson.", false},
		{"Where does my dad live?", "My mom lives in Tucson.", true},
		{"Does my dad smoke?", "I quit smoking in 2019.", true},
		{"What does my partner do?", "My wife Anna is a teacher.", false},
		{"Where do my mom and dad live?", "My dad lives in Tucson.", false},
		// Whose relative: my wife's boss is not my boss.
		{"Who is my wife's boss?", "My new boss is Tom Alvarez.", true},
		{"Who is my wife's boss?", "My wife's boss is Tom Alvarez.", false},
		// A pet too: my cat is not my dog; my pet may be either.
		{"How old is my dog?", "My cat Miso is 12 years old.", true},
		{"What's my parrot's name?", "Our dog is a golden retriever named Biscuit.", true},
		{"What is my pet's name?", "Our dog is a golden retriever named Biscuit.", false},
		{"What does my puppy eat?", "Our dog eats kibble.", false},
		{"How often do I feed the dog?", "Biscuit eats kibble twice a day.", false},
		// Asked about me: a note only about another does not answer.
		{"Am I allergic to cats?", "My wife is allergic to cats.", true},
		{"What size shoes do I wear?", "My son wears size 4 shoes.", true},
		{"When is my birthday?", "Priya's birthday is October 3.", true},
		{"Who is my dentist?", "The kids' dentist is Dr. Wong.", true},
		{"Do I speak Japanese?", "My wife speaks Japanese.", true},
		{"Where do I live?", "My parents still live in Ohio.", true},
		{"Where do I live?", "My wife and I live in Denver.", false},
		{"Where do I live?", "We live in Denver with my parents.", false},
		{"Where do I live?", "My family lives in Denver.", false},
		{"What is my shoe size?", "My shoe size is 10.5.", false},
		{"What's my wifi password?", "The wifi password is on the router.", false},
		{"What does the user drink?", "User's wife drinks tea.", false},
		{"What do I drink?", "User's wife drinks tea.", true},
		{"What do I drink?", "User drinks tea.", false},
		// A question naming a person leaves their possessions to LacksName.
		{"What did Ana tell me?", "Ana's plan is delayed.", false},
		{"What did Ana tell me?", "My sister said the plan is delayed.", true},
		// A question about no one asks nothing of whose a note is.
		{"When is the launch?", "My wife's launch party is on Friday.", false},
	} {
		if got := Ask(c.question).LacksPerson(c.text, nil); got != c.lacks {
			t.Errorf("%q of %q: LacksPerson %v, want %v", c.question, c.text, got, c.lacks)
		}
	}
}

func TestRelativeNames(t *testing.T) {
	for text, want := range map[string]map[string][]string{
		"My manager is Priya Shah.":                    {"manager": {"priya", "shah"}},
		"My son Leo is 5 and loves trains.":            {"son": {"leo"}},
		"My wife, Anna, teaches music.":                {"wife": {"anna"}},
		"Tom Baker is my brother.":                     {"brother": {"tom", "baker"}},
		"My mom is a nurse.":                           nil,
		"My wife and I live in Denver.":                nil,
		"My manager's name is Raj.":                    {"manager": {"raj"}},
		"My manager's office is in Leeds.":             nil,
		"Our dog is a golden retriever named Biscuit.": {"dog": {"biscuit"}},
		"We have a cat named Mochi.":                   {"cat": {"mochi"}},
		"My cat Miso is 12 years old.":                 {"cat": {"miso"}},
		"My sister called me yesterday.":               nil,
		"Ana said my sister is Priya's best friend.":   nil,
		"My kids are Ella and Noah.":                   {"kids": {"ella", "noah"}},
		"Our kids are Ella (8) and Noah (5).":          {"kids": {"ella", "noah"}},
		"My parents are retired.":                      nil,
	} {
		got := RelativeNames(text)
		if len(got) != len(want) {
			t.Errorf("%q: RelativeNames = %v, want %v", text, got, want)
			continue
		}
		for rel, names := range want {
			if !slices.Equal(got[rel], names) {
				t.Errorf("%q: RelativeNames = %v, want %v", text, got, want)
			}
		}
	}
}

// A relative is held by a note naming the name memory gives them, and
// asked of with words between "my" and the relation ("my current
// manager").
func TestLacksPersonByName(t *testing.T) {
	named := map[string][]string{"manager": {"priya", "shah"}, "son": {"leo"}, "dog": {"biscuit"}}
	for _, c := range []struct {
		question, text string
		lacks          bool
	}{
		{"When is my manager's birthday?", "Priya's birthday is October 3.", false},
		{"When is my boss's birthday?", "Priya's birthday is October 3.", false},
		{"Who is my son's best friend?", "Leo's best friend is Noah.", false},
		{"Who is my daughter's best friend?", "Leo's best friend is Noah.", true},
		{"Who is my current manager?", "Correction: my manager is now Lisa.", false},
		{"Who is my current manager?", "Lisa runs the design team.", true},
		{"What tablet do I use?", "Priya uses a Galaxy Tab.", true},
		{"What do I feed the dog?", "Biscuit eats kibble twice a day.", false},
		{"What did Priya tell me?", "Priya uses a Galaxy Tab.", false},
		{"What does my dog eat?", "Biscuit eats kibble twice a day.", false},
		{"What does my cat eat?", "Biscuit eats kibble twice a day.", true},
	} {
		if got := Ask(c.question).LacksPerson(c.text, named); got != c.lacks {
			t.Errorf("%q of %q: LacksPerson %v, want %v", c.question, c.text, got, c.lacks)
		}
	}
}

// A note holding only the relative asked of answers only with the kind
// of answer asked for.
func TestOnlyWhom(t *testing.T) {
	for _, c := range []struct {
		question, text string
		only           bool
	}{
		{"When is my dad's birthday?", "My father still smokes.", true},
		{"When is my dad's birthday?", "Dad was born on 5 May.", false},
		{"When is my dad's birthday?", "My dad's birthday party is at the lake.", false},
		{"Does my dad smoke?", "My father quit.", false},
		{"Where does Tom work?", "Tom is a nurse.", false},
	} {
		if got := Ask(c.question).OnlyWhom(c.text, false); got != c.only {
			t.Errorf("%q of %q: OnlyWhom %v, want %v", c.question, c.text, got, c.only)
		}
	}
}

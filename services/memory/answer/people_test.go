package answer

import "testing"

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
		if got := LacksPerson(c.question, c.text); got != c.lacks {
			t.Errorf("%q of %q: LacksPerson %v, want %v", c.question, c.text, got, c.lacks)
		}
	}
}

package lexicon

import "slices"

// relationWords are the words for the people of a person's life that
// notes and questions say with "my": each word, its relation, and the
// wider one it belongs to ("mom" is a mother, and one of the parents).
// "Who is my mom?" is answered by "My mother is Ana" and "My parents are
// Ana and Raj", not by "My dad is Raj". "Family" is not one: "My family
// lives in Denver" is where I live too. The commoner word of a relation
// comes first: it is looked for first (relatedPeople).
var relationWords = [][3]string{
	{"mom", "mother", "parent"}, {"mum", "mother", "parent"}, {"mother", "mother", "parent"},
	{"mommy", "mother", "parent"}, {"mama", "mother", "parent"}, {"dad", "father", "parent"},
	{"father", "father", "parent"}, {"daddy", "father", "parent"}, {"papa", "father", "parent"},
	{"parent", "parent", ""}, {"parents", "parent", ""},
	{"wife", "wife", "partner"}, {"husband", "husband", "partner"}, {"spouse", "partner", ""},
	{"partner", "partner", ""}, {"girlfriend", "girlfriend", "partner"}, {"boyfriend", "boyfriend", "partner"},
	{"fiance", "fiance", "partner"}, {"fiancee", "fiance", "partner"},
	{"son", "son", "child"}, {"daughter", "daughter", "child"}, {"sons", "son", "child"},
	{"daughters", "daughter", "child"}, {"kid", "child", ""}, {"kids", "child", ""}, {"child", "child", ""},
	{"children", "child", ""},
	{"brother", "brother", "sibling"}, {"sister", "sister", "sibling"}, {"brothers", "brother", "sibling"},
	{"sisters", "sister", "sibling"}, {"sibling", "sibling", ""}, {"siblings", "sibling", ""},
	{"grandma", "grandmother", "grandparent"}, {"grandmother", "grandmother", "grandparent"},
	{"granny", "grandmother", "grandparent"}, {"nana", "grandmother", "grandparent"},
	{"grandpa", "grandfather", "grandparent"}, {"grandfather", "grandfather", "grandparent"},
	{"grandparents", "grandparent", ""},
	{"aunt", "aunt", ""}, {"uncle", "uncle", ""}, {"cousin", "cousin", ""}, {"niece", "niece", ""},
	{"nephew", "nephew", ""},
	{"boss", "manager", ""}, {"manager", "manager", ""}, {"supervisor", "manager", ""},
	{"neighbor", "neighbor", ""}, {"neighbour", "neighbor", ""}, {"neighbors", "neighbor", ""},
	{"neighbours", "neighbor", ""},
	{"friend", "friend", ""}, {"roommate", "roommate", ""}, {"flatmate", "roommate", ""},
	{"colleague", "colleague", ""}, {"coworker", "colleague", ""},
}

// relations are relationWords by word.
var relations = func() map[string][2]string {
	out := make(map[string][2]string, len(relationWords))
	for _, r := range relationWords {
		out[r[0]] = [2]string{r[1], r[2]}
	}
	return out
}()

// Relative reports whether w (lowercased) names a person by their
// relation to the writer: "mom", "wife", "boss".
func Relative(w string) bool {
	_, ok := relations[w]
	return ok
}

// relatedPeople are, by relation word, the words notes use for the same
// person (relationWords, in their order): the same relation ("boss",
// "manager"), then its members ("kids": "son", "daughter"), then a
// member's group ("wife": "spouse"), but a word that as often names
// someone else (loose): a business partner is no wife. "Who is my
// manager?" is told by "My boss is Karen".
var relatedPeople = func() map[string][]string {
	out := map[string][]string{}
	for _, w := range relationWords {
		for _, related := range []func(v [3]string) bool{
			func(v [3]string) bool { return v[1] == w[1] },
			func(v [3]string) bool { return v[2] == w[1] },
			func(v [3]string) bool { return w[2] != "" && v[1] == w[2] && !loose[v[0]] },
		} {
			for _, v := range relationWords {
				if v[0] != w[0] && related(v) && !slices.Contains(out[w[0]], v[0]) {
					out[w[0]] = append(out[w[0]], v[0])
				}
			}
		}
	}
	return out
}()

// loose are relation and pet words that as often name someone or
// something else.
var loose = map[string]bool{"partner": true, "fish": true, "bird": true, "horse": true}

// SameRelation reports whether two relation words name one relation,
// not only one person: "boss" and "manager", "mom" and "mother"; not
// "dad" and "parents".
func SameRelation(a, b string) bool {
	ra, ok := relations[a]
	rb, ok2 := relations[b]
	return ok && ok2 && ra[0] == rb[0]
}

// petWords are the animals people keep, each with its kind, the
// commoner first; "pet" is any of them. "What is my dog's name?" is not
// answered by a note about my cat.
var petWords = [][2]string{{"dog", "dog"}, {"cat", "cat"}, {"puppy", "dog"}, {"kitten", "cat"}, {"dogs", "dog"},
	{"cats", "cat"}, {"pup", "dog"}, {"kitty", "cat"}, {"parrot", "bird"}, {"bird", "bird"}, {"budgie", "bird"},
	{"hamster", "hamster"}, {"rabbit", "rabbit"}, {"bunny", "rabbit"}, {"horse", "horse"}, {"pony", "horse"},
	{"fish", "fish"}, {"goldfish", "fish"}, {"turtle", "turtle"}, {"tortoise", "turtle"}, {"snake", "snake"},
	{"lizard", "lizard"}, {"ferret", "ferret"}, {"pet", ""}, {"pets", ""}}

// pets are petWords by word.
var pets = func() map[string]string {
	out := make(map[string]string, len(petWords))
	for _, p := range petWords {
		out[p[0]] = p[1]
	}
	return out
}()

// petKinds are the words notes use for a pet (Kinds of "pet" and "pets"):
// the animals, but those that as often name something else (loose: "I
// had fish for dinner").
var petKinds = func() []string {
	var out []string
	for _, p := range petWords {
		if p[1] != "" && !loose[p[0]] {
			out = append(out, p[0])
		}
	}
	return out
}()

// Someone reports whether w (lowercased) names someone of the writer's
// life by what they are to the writer: a relative ("mom", "boss") or a
// pet ("dog").
func Someone(w string) bool {
	_, pet := pets[w]
	return pet || Relative(w)
}

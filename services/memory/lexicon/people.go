package lexicon

import "slices"

// relations are the words for the people of a person's life that notes
// and questions say with "my": each word's relation, and the wider one it
// belongs to ("mom" is a mother, and one of the parents). "Who is my
// mom?" is answered by "My mother is Ana" and "My parents are Ana and
// Raj", not by "My dad is Raj". "Family" is not one: "My family lives in
// Denver" is where I live too.
var relations = map[string][2]string{
	"mom": {"mother", "parent"}, "mum": {"mother", "parent"}, "mother": {"mother", "parent"},
	"mommy": {"mother", "parent"}, "mama": {"mother", "parent"},
	"dad": {"father", "parent"}, "father": {"father", "parent"}, "daddy": {"father", "parent"}, "papa": {"father", "parent"},
	"parent": {"parent", ""}, "parents": {"parent", ""},
	"wife": {"wife", "partner"}, "husband": {"husband", "partner"}, "spouse": {"partner", ""},
	"partner": {"partner", ""}, "girlfriend": {"girlfriend", "partner"}, "boyfriend": {"boyfriend", "partner"},
	"fiance": {"fiance", "partner"}, "fiancee": {"fiance", "partner"},
	"son": {"son", "child"}, "daughter": {"daughter", "child"}, "sons": {"son", "child"}, "daughters": {"daughter", "child"},
	"kid": {"child", ""}, "kids": {"child", ""}, "child": {"child", ""}, "children": {"child", ""},
	"brother": {"brother", "sibling"}, "sister": {"sister", "sibling"}, "brothers": {"brother", "sibling"},
	"sisters": {"sister", "sibling"}, "sibling": {"sibling", ""}, "siblings": {"sibling", ""},
	"grandma": {"grandmother", "grandparent"}, "grandmother": {"grandmother", "grandparent"},
	"granny": {"grandmother", "grandparent"}, "nana": {"grandmother", "grandparent"},
	"grandpa": {"grandfather", "grandparent"}, "grandfather": {"grandfather", "grandparent"},
	"grandparents": {"grandparent", ""},
	"aunt":         {"aunt", ""}, "uncle": {"uncle", ""}, "cousin": {"cousin", ""}, "niece": {"niece", ""}, "nephew": {"nephew", ""},
	"boss": {"manager", ""}, "manager": {"manager", ""}, "supervisor": {"manager", ""},
	"neighbor": {"neighbor", ""}, "neighbour": {"neighbor", ""}, "neighbors": {"neighbor", ""}, "neighbours": {"neighbor", ""},
	"friend": {"friend", ""}, "roommate": {"roommate", ""}, "flatmate": {"roommate", ""},
	"colleague": {"colleague", ""}, "coworker": {"colleague", ""},
}

// Relative reports whether w (lowercased) names a person by their
// relation to the writer: "mom", "wife", "boss".
func Relative(w string) bool {
	_, ok := relations[w]
	return ok
}

// SameRelative reports whether two relation words can name the same
// person: "mom" and "mother", "parents" and "dad"; not "mom" and "dad".
func SameRelative(a, b string) bool {
	ra, ok := relations[a]
	rb, ok2 := relations[b]
	if !ok || !ok2 {
		return false
	}
	return ra[0] == rb[0] || ra[0] == rb[1] || ra[1] == rb[0]
}

// relatedPeople are, by relation word, the words notes use for the same
// person (relations): the same relation ("boss", "manager"), its members
// ("kids": "son", "daughter"), and a member's group ("wife": "partner",
// "spouse"). "Who is my manager?" is told by "My boss is Karen".
var relatedPeople = func() map[string][]string {
	out := map[string][]string{}
	for w, rw := range relations {
		for v, rv := range relations {
			if v != w && (rv[0] == rw[0] || rv[1] == rw[0] || rw[1] != "" && rv[0] == rw[1]) {
				out[w] = append(out[w], v)
			}
		}
		slices.Sort(out[w])
	}
	return out
}()

package lexicon

import (
	"slices"
	"strings"
	"testing"
)

func TestTerms(t *testing.T) {
	got := Terms("What is the DB password for Staging? staging again, 7 🚀")
	if want := []string{"db", "password", "staging", "7", "🚀"}; !slices.Equal(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
}

func TestStemAndNear(t *testing.T) {
	for _, w := range []string{"deploys", "deployed", "deploying"} {
		if Stem(w) != Stem("deploy") {
			t.Errorf("Stem(%q) = %q, want %q", w, Stem(w), Stem("deploy"))
		}
	}
	for _, c := range []struct {
		a, b string
		near bool
	}{{"postgres", "postgress", true}, {"cat", "car", false}, {"deploy", "dpeloy", true}, {"deploy", "xeploy", false}, {"deploy", "dxxloy", false}} {
		if Near(c.a, c.b) != c.near {
			t.Errorf("Near(%q, %q) = %v", c.a, c.b, !c.near)
		}
	}
	if n := Coverage([]string{"deploy", "staging", "friday"}, "Deployed to staging."); n != 2 {
		t.Errorf("Coverage = %d, want 2", n)
	}
	if !Stopword("the") || Stopword("staging") {
		t.Error("Stopword")
	}
}

func TestIdioms(t *testing.T) {
	for q, want := range map[string]string{
		"What do I do for a living?":       "work",
		"Is living in Lisbon expensive?":   "living lisbon expensive",
		"For a living room, which colour?": "living room colour",
		"How does Tom make a living now?":  "tom make work",
	} {
		if got := strings.Join(Terms(q), " "); got != want {
			t.Errorf("Terms(%q) = %q, want %q", q, got, want)
		}
	}
	if w := Words("do for a living"); w[3] != "living" {
		t.Errorf("Words changed its caller's view: %q", w)
	}
}

func TestKinds(t *testing.T) {
	if !slices.Contains(Kinds("pet"), "dog") || !slices.Contains(Kinds("manager"), "boss") {
		t.Errorf("Kinds(pet) = %q, Kinds(manager) = %q", Kinds("pet"), Kinds("manager"))
	}
	if Kinds("dog") != nil || Kinds("career") != nil {
		t.Errorf("Kinds(dog) = %q, Kinds(career) = %q, want none", Kinds("dog"), Kinds("career"))
	}
	// People's kinds come from the relations: members, the same
	// relation, a member's group; never a sibling relation, nor a
	// business partner for a wife.
	for w, want := range map[string][]string{"kids": {"son", "daughter", "children"}, "wife": {"spouse"},
		"parents": {"mom", "father"}, "boss": {"manager", "supervisor"}} {
		for _, k := range want {
			if !slices.Contains(Kinds(w), k) {
				t.Errorf("Kinds(%s) = %q, want %s among them", w, Kinds(w), k)
			}
		}
	}
	if !SameRelation("boss", "manager") || !SameRelation("mom", "mother") || SameRelation("dad", "parents") || SameRelation("boss", "dog") {
		t.Error("SameRelation: boss is manager, mom mother; dad is one of the parents, not their relation")
	}
	if slices.Contains(Kinds("mom"), "dad") || slices.Contains(Kinds("wife"), "husband") || slices.Contains(Kinds("wife"), "partner") || slices.Contains(Kinds("son"), "daughter") {
		t.Errorf("Kinds(mom) = %q, Kinds(wife) = %q, Kinds(son) = %q: another person", Kinds("mom"), Kinds("wife"), Kinds("son"))
	}
	if k := Kinds("pet"); len(k) < 4 || k[0] != "dog" || k[1] != "cat" || slices.Contains(k, "fish") {
		t.Errorf("Kinds(pet) = %q, want the pets, the commonest first, no fish", k)
	}
	for w := range kinds {
		if Someone(w) {
			t.Errorf("%s is in kinds and in relations: its kinds are the relations'", w)
		}
	}
}

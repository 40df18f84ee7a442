package wordnet_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory/wordnet"
)

func related(word string) map[string]wordnet.Related {
	out := map[string]wordnet.Related{}
	for _, r := range wordnet.RelatedTo(word, 0) {
		out[r.Word] = r
	}
	return out
}

func TestRelatedTo(t *testing.T) {
	for _, c := range []struct {
		word, want string
		rel        wordnet.Relation
	}{
		{"typeface", "font", wordnet.Synonym},
		{"fonts", "typeface", wordnet.Synonym},
		{"car", "automobile", wordnet.Synonym},
		{"automobiles", "car", wordnet.Synonym},
		{"begin", "start", wordnet.Synonym},
		{"started", "begin", wordnet.Synonym},
		{"rotation", "rotate", wordnet.Derived},
		{"dog", "canine", wordnet.Broader},
	} {
		r, ok := related(c.word)[c.want]
		if !ok {
			t.Errorf("%q: %q is not related; got %v", c.word, c.want, wordnet.RelatedTo(c.word, 0))
			continue
		}
		if r.Relation != c.rel || r.Weight <= 0 {
			t.Errorf("%q → %q: relation %d weight %g, want relation %d", c.word, c.want, r.Relation, r.Weight, c.rel)
		}
	}
	// A rare sense of a common word is not offered: "face" means a
	// typeface once in a great while.
	if _, ok := related("typeface")["face"]; ok {
		t.Error(`"typeface" offers "face"`)
	}
	if got := wordnet.RelatedTo("kubernetes", 0); got != nil {
		t.Errorf("an unknown word has relations: %v", got)
	}
	all := wordnet.RelatedTo("child", 0)
	for i := 1; i < len(all); i++ {
		if all[i].Weight > all[i-1].Weight {
			t.Fatalf("not strongest first: %v", all)
		}
	}
	if some := wordnet.RelatedTo("child", 0.3); len(some) >= len(all) || len(some) == 0 {
		t.Errorf("minWeight 0.3 kept %d of %d", len(some), len(all))
	}
}

func TestBase(t *testing.T) {
	for form, want := range map[string]string{
		"children": "child", "went": "go", "mice": "mouse", "started": "start", "boxes": "box",
		"grabbed": "grab", "hugged": "hug", "typefaces": "typeface", "uses": "use", "font": "font",
	} {
		if got, ok := wordnet.Base(form); !ok || got != want {
			t.Errorf("Base(%q) = %q, %v; want %q", form, got, ok, want)
		}
	}
	for _, w := range []string{"docker", "xyzzy", ""} {
		if got, ok := wordnet.Base(w); ok && got != w {
			t.Errorf("Base(%q) = %q", w, got)
		}
	}
}

func TestSenses(t *testing.T) {
	shared := func(a, b string) bool {
		for _, x := range wordnet.Senses(a) {
			for _, y := range wordnet.Senses(b) {
				if x.Synset == y.Synset {
					return true
				}
			}
		}
		return false
	}
	for _, p := range [][2]string{{"fonts", "typeface"}, {"car", "automobile"}, {"begin", "start"}, {"children", "child"}} {
		if !shared(p[0], p[1]) {
			t.Errorf("%q and %q share no sense", p[0], p[1])
		}
	}
	if shared("car", "font") {
		t.Error(`"car" and "font" share a sense`)
	}
	for _, w := range []string{"start", "bank", "run", "child"} {
		var sum float32
		for _, s := range wordnet.Senses(w) {
			sum += s.Weight
			if len(wordnet.Hypernyms(s.Synset)) == 0 && w != "start" {
				t.Logf("%q sense %d has no hypernym", w, s.Synset)
			}
		}
		if sum < 0.99 || sum > 1.01 {
			t.Errorf("%q: sense weights sum to %g", w, sum)
		}
	}
	if len(wordnet.Hypernyms(wordnet.Senses("dog")[0].Synset)) == 0 {
		t.Error(`"dog" has no hypernym`)
	}
}

// TestGenerateIsDeterministic regenerates the table from the WordNet
// database (when installed) and checks it is the shipped one, byte for byte.
func TestGenerateIsDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerates the table")
	}
	if _, err := os.Stat("/usr/share/wordnet/data.noun"); err != nil {
		t.Skip("WordNet is not installed in /usr/share/wordnet (Debian: apt install wordnet-base)")
	}
	out := filepath.Join(t.TempDir(), "table.gz")
	cmd := exec.Command("go", "run", "./gen", "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./gen: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := os.ReadFile("table.gz")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, shipped) {
		t.Fatalf("the generator made %d bytes that differ from the shipped table.gz (%d bytes): run go generate", len(got), len(shipped))
	}
}

func TestForms(t *testing.T) {
	for word, want := range map[string]string{
		"run": "ran running", "ran": "run running", "went": "go goes gone", "buy": "bought", "meet": "met",
		"mouse": "mice", "paint": "", "docker": "",
	} {
		if got := strings.Join(wordnet.Forms(word), " "); got != want {
			t.Errorf("Forms(%q) = %q, want %q", word, got, want)
		}
	}
}

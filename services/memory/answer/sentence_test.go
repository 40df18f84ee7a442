package answer

import (
	"strings"
	"testing"
)

func TestSentence(t *testing.T) {
	text := strings.Repeat("Filler about nothing in particular. ", 10) +
		"The staging database password rotates every Friday. The office dog is called Biscuit.\nMore filler."
	if got := Sentence([]string{"staging", "password"}, Any, text); got != "The staging database password rotates every Friday." {
		t.Errorf("Sentence = %q", got)
	}
	// A tie goes to the sentence holding the kind of answer asked for.
	tie := strings.Repeat("x ", 200) + "\nThe deploy is done. The deploy is at 9:30."
	if got := Sentence([]string{"deploy"}, Time, tie); got != "The deploy is at 9:30." {
		t.Errorf("Sentence(Time) = %q", got)
	}
	if got := Sentence(nil, Any, "Short note."); got != "Short note." {
		t.Errorf("a short text: %q", got)
	}
	if got := Unwrap("a hard\nwrapped line\n\n# Heading\n- item"); got != "a hard wrapped line\n\n# Heading\n- item" {
		t.Errorf("Unwrap = %q", got)
	}
}

// A heading holding the question's words loses to the sentence under it
// holding as many; its underline is never quoted.
func TestSentenceNotAHeading(t *testing.T) {
	doc := "git-jump\n========\n\nGit-jump is a script that helps you jump to interesting places in your editor.\n\n" +
		"Usage\n-----\n\n" + strings.Repeat("Filler about nothing in particular. ", 10)
	if got := Sentence([]string{"git", "jump"}, Any, doc); !strings.HasPrefix(got, "Git-jump is a script") {
		t.Errorf("Sentence = %q", got)
	}
	md := "## Deploys\n\nDeploys happen on Tuesdays after the standup.\n" + strings.Repeat("Filler about nothing in particular. ", 10)
	if got := Sentence([]string{"deploys"}, Any, md); got != "Deploys happen on Tuesdays after the standup." {
		t.Errorf("Sentence = %q", got)
	}
	if got := Unwrap("Usage\n-----\nrun it\nwith care"); got != "Usage\n-----\nrun it with care" {
		t.Errorf("Unwrap = %q", got)
	}
}

func TestHighlight(t *testing.T) {
	for _, c := range []struct{ terms, in, want string }{
		{"dark roast coffee", "I prefer dark roast coffee, black.", "I prefer **dark roast coffee**, black."},
		{"deploy tuesday", "Deploys happen on Tuesdays.", "**Deploys** happen on **Tuesdays**."},
		{"café", "Le café, noir.", "Le **café**, noir."},
		{"", "Nothing to mark.", "Nothing to mark."},
	} {
		if got := Highlight(strings.Fields(c.terms), c.in); got != c.want {
			t.Errorf("Highlight(%q, %q) = %q, want %q", c.terms, c.in, got, c.want)
		}
	}
}

func TestQuoteAsks(t *testing.T) {
	for _, c := range []struct {
		terms, text string
		want        bool
	}{
		{"bowl make", `Nice one! Did you make the bowl?`, true},
		{"bowl make", `Thanks! I made this bowl in my class.`, false},
		{"pottery", `Caroline said, "What other projects do you do, besides pottery?" [shares a photo of a cup]`, true},
		// A statement holding as many of the words wins the tie.
		{"camping", `We went camping. How was camping for you?`, false},
		{"camping", `How was camping? We loved camping by the lake.`, false},
		{"deploy", `The deploy is done.`, false},
		// The speaker's name before a line says who asked, not what.
		{"caroline running", `Caroline: Wow! What got you into running?`, true},
		{"caroline running", `(4:33 pm on 12 July, 2023) Caroline said, "Wow! What got you into running?"`, true},
		{"caroline running", `[09:12] Caroline: Wow! What got you into running?`, true},
		{"caroline running", `Caroline: Wow! I got into running last year.`, false},
	} {
		if _, got := Quote(strings.Fields(c.terms), Any, c.text); got != c.want {
			t.Errorf("Quote(%q, %q) asks %v, want %v", c.terms, c.text, got, c.want)
		}
	}
}

package answer

import "testing"

func TestToAnother(t *testing.T) {
	for _, c := range []struct {
		question, text string
		want           bool
	}{
		// Said by the one asked about, to another, of the other's race.
		{"What did Caroline realize after her charity race?", `Caroline: Congrats on your charity race, Mel! So proud of you.`, true},
		{"What did Caroline realize after her charity race?", `(1:14 pm on 25 May, 2023) Caroline said, "Congrats on your charity race, Mel!"`, true},
		// Of the speaker too.
		{"What did Caroline realize after her charity race?", `Caroline: I ran a charity race, and I told you what I realized.`, false},
		{"What did Caroline talk about at the school event?", `Caroline: I wanted to tell you about my school event last week.`, false},
		// Said by another.
		{"What did Caroline realize after her charity race?", `Melanie: Congrats on your charity race, Caroline!`, false},
		// A question of what one said to another.
		{"What substitution does Nate suggest for butter?", `Nate: You can use coconut oil instead of butter.`, false},
		// Two named, or a line with no speaker.
		{"What did Caroline tell Melanie about her race?", `Caroline: Congrats on your race!`, false},
		{"What did Caroline realize after her charity race?", `Congrats on your charity race, Mel!`, false},
	} {
		if got := Ask(c.question).ToAnother(c.text); got != c.want {
			t.Errorf("Ask(%q).ToAnother(%q) = %v, want %v", c.question, c.text, got, c.want)
		}
	}
}

package lexicon

import "testing"

// A name spoken to is left out of what the keyword index holds; a name
// spoken of, in apposition, or a plain capitalised word stays.
func TestWithoutNamesSpokenTo(t *testing.T) {
	for in, want := range map[string]string{
		`Melanie said, "Thanks, Caroline! I ran a charity race."`: `Melanie said, "Thanks, ! I ran a charity race."`,
		`Hey Gina, congrats on the store!`:                        `Hey , congrats on the store!`,
		`That sounds great, Mel!`:                                 `That sounds great, !`,
		`Caroline ran a charity race and I cheered.`:              `Caroline ran a charity race and I cheered.`,
		`The runner, Caroline, finished in an hour.`:              `The runner, Caroline, finished in an hour.`,
		`Deploys go out on Fridays.`:                              `Deploys go out on Fridays.`,
		`Woohoo Melanie! I passed the interviews.`:                `Woohoo ! I passed the interviews.`,
	} {
		if got := withoutNamesSpokenTo(in); got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
	rest, names := SplitNamesSpokenTo(`Thanks, Gina! And hi Bo.`)
	if rest != `Thanks, ! And hi .` || len(names) != 2 || names[0] != "Gina" || names[1] != "Bo" {
		t.Errorf("SplitNamesSpokenTo = %q, %q", rest, names)
	}
}

func withoutNamesSpokenTo(text string) string {
	rest, _ := SplitNamesSpokenTo(text)
	return rest
}

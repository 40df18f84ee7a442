package answer

import (
	"testing"
	"time"
)

func TestResolveDates(t *testing.T) {
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC) // a Monday
	for in, want := range map[string]string{
		"I went to a LGBTQ support group yesterday and it was so powerful.": "I went to a LGBTQ support group yesterday (7 May 2023) and it was so powerful.",
		"We moved last month.":                                        "We moved last month (April 2023).",
		"I'm on call the last week of every month.":                   "I'm on call the last week of every month.",
		"Book club is the last Friday of the month, not last Friday.": "Book club is the last Friday of the month, not last Friday (5 May 2023).",
		"Two weeks ago I ran a charity race":                          "Two weeks ago (the week of 24 April 2023) I ran a charity race",
		"3 days ago, and tomorrow again":                              "3 days ago (5 May 2023), and tomorrow (9 May 2023) again",
		"Last year was hard.":                                         "Last year (2022) was hard.",
		"Deploys happen on Tuesdays.":                                 "Deploys happen on Tuesdays.",
		"Yesterday's news":                                            "Yesterday (7 May 2023)'s news",
		"I went to a poetry reading last Fri":                         "I went to a poetry reading last Fri (5 May 2023)",
		"See you next Monday.":                                        "See you next Monday (15 May 2023).",
		"Last Sunday we hiked.":                                       "Last Sunday (7 May 2023) we hiked.",
		"that roadtrip this past weekend":                             "that roadtrip this past weekend (the week of 1 May 2023)",
		"We went camping a few weeks ago.":                            "We went camping a few weeks ago (a few weeks before 8 May 2023).",
		"I saw her the other day.":                                    "I saw her the other day (shortly before 8 May 2023).",
		"Busy this month":                                             "Busy this month (May 2023)",
		"This past Friday was fun":                                    "This past Friday (5 May 2023) was fun",
	} {
		if got := ResolveDates(in, at); got != want {
			t.Errorf("ResolveDates(%q) = %q, want %q", in, got, want)
		}
	}
	if got := ResolveDates("yesterday", time.Time{}); got != "yesterday" {
		t.Errorf("no time known: %q", got)
	}
}

// A transcript's stamp says when its line was said; its "yesterday" counts
// from that, not from when the note was stored.
func TestDatedByStamp(t *testing.T) {
	stored := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct{ snippet, text, want string }{
		{"I took my turtles to the beach yesterday!", `(2:01 pm on 23 January, 2022) Joanna said, "Long day. I took my turtles to the beach yesterday!"`,
			"I took my turtles to the beach yesterday (22 January 2022)!"},
		{`(1:56 pm on 8 May, 2023) Caroline said, "I went to a support group yesterday."`, `(1:56 pm on 8 May, 2023) Caroline said, "I went to a support group yesterday."`,
			`(1:56 pm on 8 May, 2023) Caroline said, "I went to a support group yesterday (7 May 2023)."`},
		{"Bo: the deploy went out last Friday", "[2023-05-08 13:56] Bo: the deploy went out last Friday", "Bo: the deploy went out last Friday (5 May 2023)"},
		{"deploy went out yesterday", "2023-05-08 Bo: deploy went out yesterday", "deploy went out yesterday (7 May 2023)"},
		{"we met yesterday", "[May 8th, 2023] we met yesterday", "we met yesterday (7 May 2023)"},
		{"we met yesterday", "(spring 2023) we met yesterday", "we met yesterday"},
		{"we met yesterday", "(31 April, 2023) we met yesterday", "we met yesterday"},
		{"we met yesterday", "(see below) we met yesterday", "we met yesterday (4 December 2026)"},
		{"Yesterday I got my permit.", "I moved to Berlin in 2019. Yesterday I got my permit.", "Yesterday (4 December 2026) I got my permit."},
	} {
		if got := Dated(c.snippet, c.text, stored); got != c.want {
			t.Errorf("Dated(%q, %q) = %q, want %q", c.snippet, c.text, got, c.want)
		}
	}
}

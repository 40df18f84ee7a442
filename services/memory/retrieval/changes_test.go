package retrieval

import (
	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
	"slices"
	"testing"
)

func TestFramesOf(t *testing.T) {
	for text, want := range map[string][]string{
		"I moved to Berlin last month.":                            {"live", "home", "based"},
		"We've finally moved into a new flat.":                     {"live", "home", "based"},
		"I moved back to Lisbon in May.":                           {"live", "home", "based"},
		"We migrated billing to Postgres in March.":                {"use"},
		"We switched from Jenkins to Actions.":                     {"use"},
		"I left Acme and joined a startup called Lumen":            {"work", "job"},
		"I quit my job at the bank.":                               {"work", "job"},
		"I quit my job as a school teacher and joined Duolingo.":   {"work", "job"},
		"We moved to Denver when I was transferred.":               {"live", "home", "based"},
		"I'd move to Lisbon in a heartbeat if the job allowed it.": nil,
		"I'd moved to Lisbon before the pandemic.":                 {"live", "home", "based"},
		"We moved the standup to Friday.":                          nil,
		"Our new address is 12 Rua Augusta, Lisbon.":               {"live", "home", "based"},
		"I switched jobs in January: I'm now a PM at Brightwave.":  {"work", "job"},
		"I got a new job at Stripe.":                               {"work", "job"},
		"I took a job with the city council.":                      {"work", "job"},
		"I got a job offer from Stripe.":                           nil,
		"We switched companies for our health insurance.":          nil,
		"My new address is ana@example.com.":                       nil,
		"Her new address is 12 Rua Augusta.":                       nil,
		"The new address is 12 Rua Augusta.":                       nil,
		"The standup moved to 9:45.":                               nil,
		"I moved the files to Dropbox.":                            nil,
		"We moved the meeting to the 14th.":                        nil,
		"Since I moved to the night shift I sleep badly.":          nil,
		"I switched off the TV.":                                   nil,
		"The geese migrated south early this year.":                nil,
		"I left the company car at the garage.":                    nil,
		"I left my keys at home.":                                  nil,
		"My sister moved to Berlin last month.":                    nil,
		"Sam quit his job at the bank.":                            nil,
		"I left Acme and joined Lumen.":                            {"work", "job"},
		"I left Acme Corp to join Lumen in May.":                   {"work", "job"},
		"I joined Lumen as a product designer.":                    {"work", "job"},
		"I left Berlin and moved to Paris.":                        {"live", "home", "based"},
		"I left Berlin in May.":                                    nil,
		"I joined Strava last week.":                               nil,
		"I joined Tom and Ana for dinner.":                         nil,
		"We moved to 44 Elm Street.":                               {"live", "home", "based", "address"},
		"I moved into 12b Oak Rd, Leeds last week.":                {"live", "home", "based", "address"},
		"I moved to 3 monitors at work.":                           nil,
		"We moved the party to 44 Elm Street.":                     nil,
		"I just started a new job at Stripe.":                      {"work", "job"},
		"We renamed the puppy to Bear.":                            {"called", "named", "name"},
		"I started the dishwasher.":                                nil,
		"We moved to the Netherlands in 2024.":                     {"live", "home", "based"},
		"I moved to San Francisco for the job.":                    {"live", "home", "based"},
		"I moved to New York.":                                     {"live", "home", "based"},
		"I moved to SF last year.":                                 {"live", "home", "based"},
		"I moved to Neovim from VS Code.":                          nil,
		"We moved to Slack last year.":                             nil,
		"I moved to Linear for issue tracking.":                    nil,
		"I moved to Marketing in March.":                           nil,
		"I moved to the Marketing team.":                           nil,
	} {
		var got []string
		for _, f := range framesOf(tokensOf(text)) {
			got = append(got, f.words...)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q tells of a change of %v, want %v", text, got, want)
		}
		if len(want) > 0 && !noteTellsOfChange(text) {
			t.Errorf("%q does not tell of a change", text)
		}
	}
}

func TestNoteTellsOfChange(t *testing.T) {
	for text, want := range map[string]bool{
		"Ana left the company; Raj is my manager now.":               true,
		"Actually, my favorite restaurant is now Zuni Cafe.":         true,
		"I got a raise; my salary is now $165k.":                     true,
		"The office is now at 5 Main Street.":                        false,
		"I cancelled my gym membership in January.":                  true,
		"I sold the Civic and bought a Tesla.":                       true,
		"I no longer drink coffee.":                                  true,
		"We use Postgres instead.":                                   true,
		"Correction: deploys go out after lunch.":                    true,
		"My manager is now on vacation until June.":                  false,
		"My commute felt longer than usual.":                         false,
		"Deploys go out on Tuesdays.":                                false,
		"Actually, the blue folder also holds the insurance papers.": false,
		"Maya is allergic to cats, not dogs.":                        false,
		"I actually liked the movie.":                                false,
		"My new year's resolution is to read more.":                  false,
		"We upgraded the main database to Postgres 16.":              true,
		"I bought a new bike.":                                       false,
		"My new manager is Rachel Kim; Tom left the company.":        true,
		"My new phone number is 555-9876.":                           true,
		"Our new office is in Porto.":                                true,
		"My new neighbour's dog is loud.":                            false,
		"My new favourite band, Wet Leg, is on tour.":                false,
		"Is my new laptop here yet?":                                 false,
		"When I was ten, we moved to Texas from Mexico.":             false,
		"When I was twelve, we moved to Spain.":                      false,
		"In college I quit my job at Starbucks.":                     false,
		"As a kid I switched schools twice.":                         false,
		"Growing up, we moved a lot.":                                false,
		"Our new office manager is Carla.":                           false,
		"My new car insurance is with Geico.":                        false,
		"My new email address is dana@example.org.":                  true,
		"In high school I stopped playing piano.":                    false,
		"I'm not sure the demo works.":                               false,
	} {
		if got := noteTellsOfChange(text); got != want {
			t.Errorf("noteTellsOfChange(%q) = %v, want %v", text, got, want)
		}
	}
}

// BenchmarkChangeReading is what reading a note for a change costs the
// index, per note, for one that tells of none (most) and one that does.
func BenchmarkChangeReading(b *testing.B) {
	for name, text := range map[string]string{
		"none":   `(1:56 pm on 8 May, 2023) Caroline said, "I went to a LGBTQ support group yesterday and it was so powerful."`,
		"new":    `(1:56 pm on 8 May, 2023) Caroline said, "I went to a new LGBTQ support group yesterday and it was so powerful."`,
		"change": `(1:56 pm on 8 May, 2023) Caroline said, "We finally moved to Boston last month, and I joined a startup there."`,
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				noteTellsOfChange(text)
				frameKeys(text)
			}
		})
	}
}

func TestAsksNow(t *testing.T) {
	for q, want := range map[string][2]bool{
		"Where do I live now?":                  {true, true},
		"Is my appointment on the 12th?":        {true, true},
		"Do I still use Vim?":                   {true, true},
		"Where do I live?":                      {false, true},
		"What is my phone number?":              {false, true},
		"Which editor do I use?":                {false, true},
		"Where did I live in 2020?":             {false, false},
		"What did Caroline research?":           {false, false},
		"When was the last time they went out?": {false, false},
	} {
		now, present := asksNow(lexicon.Words(q))
		if [2]bool{now, present} != want {
			t.Errorf("asksNow(%q) = %v, %v, want %v", q, now, present, want)
		}
	}
}

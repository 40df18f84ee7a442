package retrieval

import (
	"slices"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
)

func TestPartedWith(t *testing.T) {
	for text, want := range map[string][]string{
		"I sold my Civic and bought a Tesla Model 3.":                {"civic"},
		"We sold our 2012 Honda Civic last week.":                    {"honda", "civic"},
		"I left Acme and joined Lumen in March.":                     {"acme"},
		"I quit my job at Initech.":                                  {"initech"},
		"I cancelled Netflix, too many ads.":                         {"netflix"},
		"I finally got rid of my Kindle.":                            {"kindle"},
		"I traded in my Civic for a Tesla.":                          {"civic"},
		"We switched to Linear from Jira in May.":                    {"jira"},
		"We moved from Berlin to Lisbon.":                            {"berlin"},
		"I stopped using Evernote.":                                  {"evernote"},
		"I left Berlin in 2019 and joined Zalando Lisbon":            {"berlin"},
		"I sold my car.":                                             nil,
		"My sister sold her Civic.":                                  nil,
		"Tom left Acme in May.":                                      nil,
		"I left the keys at Anna's place.":                           nil,
		"I left in March.":                                           nil,
		"When I was ten we moved from Ohio to Texas.":                nil,
		"I'd quit Acme in a heartbeat.":                              nil,
		"I got a new job at Stripe.":                                 nil,
		"I gave Maria a call.":                                       nil,
		"I drive a Honda Civic.":                                     nil,
		"Sophie and I broke up.":                                     {"sophie"},
		"Yesterday Sophie and I broke up.":                           {"sophie"},
		"I broke up with Sophie last week.":                          {"sophie"},
		"I divorced Tom in 2019.":                                    {"tom"},
		"The band broke up in 2012.":                                 nil,
		"I split the bill with Ana.":                                 nil,
		"My sister broke up with Tom.":                               nil,
		"I sold my Apple shares in May.":                             nil,
		"I left Acme's office at 6pm.":                               nil,
		"I left Berlin for a week of vacation.":                      nil,
		"I left Berlin for good in 2019.":                            {"berlin"},
		"I left Lisbon on Tuesday and flew to Rome.":                 nil,
		"I left Lisbon in the morning.":                              nil,
		"I left Acme to join Lumen.":                                 {"acme"},
		"I left Acme after five years.":                              {"acme"},
		"I left Ana a message.":                                      nil,
		"I moved the meeting from Monday to Tuesday.":                nil,
		"I switched from Google Docs to Notion.":                     {"google", "docs"},
		"I canceled the Crunch membership and now just run outside.": {"crunch"},
		"I cancelled my Netflix subscription last week.":             {"netflix"},
		"We quit our Comcast plan.":                                  {"comcast"},
		"I cancelled the Crunch class tonight.":                      nil,
		"I sold my Netflix account.":                                 nil,
		"I cancelled my Netflix subscription reminder.":              nil,
	} {
		got := partedWith(text)
		if w := textkeys.Keys(want); !slices.Equal(got, w) && (len(got) != 0 || len(w) != 0) {
			t.Errorf("%q: parted with %q, want %q", text, got, w)
		}
	}
}

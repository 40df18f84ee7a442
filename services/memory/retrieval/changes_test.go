package retrieval

import (
	"slices"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
)

func TestFramesOf(t *testing.T) {
	for text, want := range map[string][]string{
		"I moved to Berlin last month.":                 {"live", "home"},
		"We relocated into a flat near the river.":      {"live", "home"},
		"We migrated billing to Postgres in March.":     {"use"},
		"The team switched from Jenkins to Actions.":    {"use"},
		"I left Acme and joined a startup called Lumen": {"work", "job"},
		"She quit her job at the bank.":                 {"work", "job"},
		"We moved the standup to Friday.":               nil,
		"The standup moved to 9:45.":                    nil,
		"I left my keys at home.":                       nil,
		"Turn left at the bakery.":                      nil,
	} {
		var got []string
		for _, f := range framesOf(lexicon.Words(text)) {
			got = append(got, f.words...)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q tells of a change of %v, want %v", text, got, want)
		}
		if len(want) > 0 && !tellsOfChange(text) {
			t.Errorf("%q does not tell of a change", text)
		}
	}
}

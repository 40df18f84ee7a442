package retrieval

import "github.com/openhuman-go/openhuman-go/services/memory/lexicon"

// What holds now: the questions asking for it, which a correction answers
// before the fact it corrects.

// currentCues are question words asking for what holds now. A correction
// holds them (coverages): "Correction: my dentist is now Dr. Lee" answers
// "What's the name of my current dentist?".
var currentCues = map[string]bool{"now": true, "current": true, "currently": true, "still": true,
	"anymore": true, "latest": true, "nowadays": true, "today": true, "new": true, "changed": true}

// presentAsks are the first words of a yes-or-no question in the present:
// "Is my appointment on the 12th?", "Do I use Vim?".
var presentAsks = map[string]bool{"is": true, "are": true, "am": true, "do": true, "does": true}

// asksNow reports whether a question's words ask what holds now: a cue
// ("now", "still") or a yes-or-no question in the present.
func asksNow(words []string) bool {
	for _, w := range words {
		if currentCues[w] {
			return true
		}
	}
	return len(words) > 0 && presentAsks[words[0]]
}

// cueBits are the bits of the terms asking what holds now, which a
// correction holds. "Today" is often what is asked ("What's on
// today?"), not when.
func cueBits(terms []string) uint64 {
	var cues uint64
	for i, t := range terms[:min(64, len(terms))] {
		if currentCues[t] && t != "today" {
			cues |= 1 << i
		}
	}
	return cues
}

// changeCues are words by which a note or a turn tells that something
// changed ("I moved to Berlin", "we switched to Postgres"): it corrects
// what memory held of it before, as a note learned as a correction does,
// and the rerank lifts it alike (FeatureCorrection).
var changeCues = map[string]bool{"moved": true, "switched": true, "changed": true, "replaced": true,
	"anymore": true, "longer": true, "instead": true, "quit": true, "stopped": true, "now": true,
	"migrated": true, "relocated": true, "upgraded": true, "downgraded": true, "rescheduled": true,
	"postponed": true, "renamed": true, "cancelled": true, "canceled": true, "sold": true}

func tellsOfChange(text string) bool {
	for _, w := range lexicon.Words(text) {
		if changeCues[w] {
			return true
		}
	}
	return false
}

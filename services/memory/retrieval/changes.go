package retrieval

import (
	"slices"

	"github.com/openhuman-go/openhuman-go/services/memory/keywordindex"
	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
)

// changeCues are words by which a turn or a loose note tells that
// something changed ("I moved to Berlin", "we switched to Postgres",
// "Raj is my manager now"): it corrects what memory held of it before, as
// a note learned as a correction does, and the rerank lifts it alike (for
// loose notes, on the LoCoMo design half as learnings: recall@5 0.598 ->
// 0.604, recall's first citations 269 -> 276 of 760).
var changeCues = map[string]bool{"moved": true, "switched": true, "changed": true, "replaced": true,
	"anymore": true, "longer": true, "instead": true, "quit": true, "stopped": true, "now": true,
	"migrated": true, "relocated": true}

func tellsOfChange(text string) bool {
	words := lexicon.Words(text)
	for _, w := range words {
		if changeCues[w] {
			return true
		}
	}
	return len(framesOf(words)) > 0
}

// A change is told in other words than the state it changes: "I moved to
// Berlin" says where I live, holding neither "live" nor "home"; "we
// migrated billing to Postgres" says what billing uses. A note telling of
// such a change is indexed with the words of that state too (frameKeys),
// so that "Where do I live now?" finds it, and as a correction it comes
// before "I live in Paris". Each frame is a verb and what must follow it
// within a few words, so that "we moved the standup to Friday" is no move
// of house: only the changes people tell a memory of most, of home,
// tools and work.
type changeFrame struct {
	verbs []string
	// next, when set, must be among the frameReach words after the verb;
	// never, the word right after the next one must not be (a day or a
	// month: a meeting moved to Friday).
	next  []string
	never func(string) bool
	words []string
}

const frameReach = 3

var changeFrames = []changeFrame{
	{verbs: []string{"moved", "relocated", "move", "moving"}, next: []string{"to", "into", "abroad", "house", "flat", "apartment", "back"},
		never: whenWord, words: []string{"live", "home"}},
	{verbs: []string{"switched", "migrated", "switching", "migrating"}, words: []string{"use"}},
	{verbs: []string{"left", "quit", "joined", "leaving", "joining"}, next: []string{"job", "company", "firm", "employer", "startup", "agency"},
		words: []string{"work", "job"}},
}

// whenWord says a word names a time, not a place.
func whenWord(w string) bool {
	if w == "" || w[0] >= '0' && w[0] <= '9' {
		return w != ""
	}
	return slices.Contains([]string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
		"tomorrow", "today", "tonight", "next", "january", "february", "march", "april", "may", "june", "july",
		"august", "september", "october", "november", "december", "noon", "morning", "afternoon", "evening"}, w)
}

// framesOf are the frames words (lexicon.Words of a text) tell a change of.
func framesOf(words []string) []*changeFrame {
	var out []*changeFrame
	for fi := range changeFrames {
		f := &changeFrames[fi]
		for i, w := range words {
			if !slices.Contains(f.verbs, w) || !f.follows(words[i+1:]) {
				continue
			}
			out = append(out, f)
			break
		}
	}
	return out
}

func (f *changeFrame) follows(after []string) bool {
	if f.next == nil {
		return true
	}
	for j, w := range after[:min(frameReach, len(after))] {
		if slices.Contains(f.next, w) {
			return f.never == nil || j+1 >= len(after) || !f.never(after[j+1])
		}
	}
	return false
}

// framePrefix marks a key a note holds as the state it tells a change of,
// not as a word of its own: keyword mode, which looks for the question's
// own words, does not find it; hybrid looks for it beside the word
// (withFrames).
const framePrefix = "\x01"

// frameWords are the index keys of every frame's words.
var frameWords = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range changeFrames {
		for _, k := range textkeys.Keys(f.words) {
			m[k] = true
		}
	}
	return m
}()

// frameKeys are the index keys of the words of the states a text tells a
// change of, nil when it tells of none.
func frameKeys(text string) []string {
	frames := framesOf(lexicon.Words(text))
	if len(frames) == 0 {
		return nil
	}
	var words []string
	for _, f := range frames {
		words = append(words, f.words...)
	}
	keys := textkeys.Keys(words)
	for i, k := range keys {
		keys[i] = framePrefix + k
	}
	return keys
}

// withFrames gives each term naming a state a change may be told of its
// frame key as an alternative, worth the word itself.
func withFrames(terms []keywordindex.Term) {
	for i, t := range terms {
		if frameWords[t.Key] {
			terms[i].Alts = append(terms[i].Alts, keywordindex.Alt{Key: framePrefix + t.Key, Weight: 1})
		}
	}
}

package retrieval

import (
	"slices"
	"strings"

	"github.com/openhuman-go/openhuman-go/services/memory/answer"
	"github.com/openhuman-go/openhuman-go/services/memory/keywordindex"
	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
)

// A change is told in other words than the state it changes: "I moved to
// Berlin" says where I live, holding neither "live" nor "home"; "we
// migrated billing to Postgres" says what billing uses. A note telling of
// such a change of its writer's ("I", "we") is indexed with the words of
// that state too (frameKeys), so that "Where do I live now?" finds it, and
// as a correction it comes before "I live in Paris". Each frame is a verb
// and what must come after it, so that "we moved the standup to Friday",
// "I moved the files to Dropbox" or "I left the company car" tell of no
// move of home or job, and "my sister moved to Berlin" is not mine.
// A frame whose state is asked of often in other senses ("use": "Which
// bank do I use?", "How do I use the VPN?") is not plain: only a question
// asking what holds now ("now", "still") takes its change for an answer,
// not one merely in the present (asksNow).
type changeFrame struct {
	verbs []string
	after func(rest []token) bool
	words []string
	plain bool
	// subject, when not nil, reads the words before the verb instead of
	// writerIsSubject: "our new address is" has no verb of the writer's.
	subject func(before []token) bool
}

var changeFrames = []changeFrame{
	{verbs: []string{"moved", "relocated", "moving", "move"}, after: movedHome, words: []string{"live", "home", "based"}, plain: true},
	{verbs: []string{"moved", "relocated", "moving", "move"}, after: toAStreet, words: []string{"address"}, plain: true},
	{verbs: []string{"switched", "migrated", "switching", "migrating"}, after: toOrFrom, words: []string{"use"}},
	{verbs: []string{"left", "quit", "joined", "leaving", "quitting", "joining", "started", "starting", "began", "switched",
		"changed", "switching", "changing", "got", "landed", "took", "accepted"}, after: aJob, words: []string{"work", "job"}, plain: true},
	{verbs: []string{"renamed", "renaming"}, after: toOrFrom, words: []string{"called", "named", "name"}, plain: true},
	{verbs: []string{"address"}, subject: myNew, after: isAHouseNumber, words: []string{"live", "home", "based"}, plain: true},
}

// myNew: "my new" or "our new" just before, as in "Our new address is".
func myNew(before []token) bool {
	n := len(before)
	return n >= 2 && before[n-1].w == "new" && !before[n-2].end && lexicon.Ours(before[n-2].w)
}

// isAHouseNumber: "is 12 Rua Augusta", "is 44b Elm Street": the address
// of a home, not of an email or a website.
func isAHouseNumber(rest []token) bool {
	return len(rest) >= 3 && (rest[0].w == "is" || rest[0].w == "will") && !rest[0].end &&
		rest[1].w[0] >= '0' && rest[1].w[0] <= '9' && !rest[1].end && rest[2].cap
}

// writerIsSubject says the clause before a verb (toks, up to it) has the
// writer as its subject: the nearest word before it, past adverbs and
// auxiliaries, is "I" or "we"; or the verb follows "and" in a clause that
// starts with them ("I left Acme and joined a startup").
func writerIsSubject(before []token) bool {
	for i := len(before) - 1; i >= 0; i-- {
		t := before[i]
		if t.end {
			return false
		}
		switch {
		case writer(t.w):
			return true
		case t.w == "and":
			j := i
			for j > 0 && !before[j-1].end {
				j--
			}
			return writer(before[j].w)
		case slices.Contains([]string{"just", "finally", "recently", "have", "had", "also", "then", "already",
			"officially", "eventually", "both", "all", "actually"}, t.w):
			continue
		}
		return false
	}
	return false
}

// would reports whether a verb's base form follows "I'd" or "we'd": "I'd
// move to Lisbon in a heartbeat" tells of a wish, "I'd moved" of a move.
func would(before []token, verb string) bool {
	if len(before) == 0 || strings.HasSuffix(verb, "ed") || strings.HasSuffix(verb, "ing") {
		return false
	}
	switch before[len(before)-1].w {
	case "i'd", "we'd", "i’d", "we’d":
		return true
	}
	return false
}

func writer(w string) bool {
	return slices.Contains([]string{"i", "we", "i've", "we've", "i'd", "we'd", "i’ve", "we’ve"}, w)
}

var dwellings = []string{"house", "flat", "apartment", "place", "city", "town", "country", "village", "suburbs",
	"neighbourhood", "neighborhood", "home"}

// movedHome: "moved abroad", "moved house", "moved (back) to Berlin",
// "moved into a new flat", "moved to the Netherlands"; not "moved to
// Friday", "moved the files to", nor a move to a tool or a team ("to
// Slack", "to Neovim from VS Code", "to Marketing"; namesNoPlace).
func movedHome(rest []token) bool {
	if len(rest) > 0 && rest[0].w == "back" && !rest[0].end {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return false
	}
	switch t := rest[0]; t.w {
	case "abroad", "house", "home", "away", "out":
		return true
	case "to", "into", "in":
		if t.end || len(rest) < 2 {
			return false
		}
		name := rest[1:]
		if name[0].w == "the" && !name[0].end && len(name) > 1 {
			name = name[1:] // "moved to the Netherlands"
		}
		if toAStreet(rest) {
			return true
		}
		if next := name[0]; next.cap && !answer.TimeWord(next.w) {
			return !namesNoPlace(nameWords(name))
		}
		for _, u := range rest[1:min(4, len(rest))] {
			if slices.Contains(dwellings, u.w) {
				return true
			}
			if u.end {
				break
			}
		}
	}
	return false
}

var streets = []string{"street", "st", "road", "rd", "avenue", "ave", "lane", "ln", "drive", "dr", "way",
	"boulevard", "blvd", "court", "ct", "close", "crescent", "terrace", "place", "square", "gardens"}

// toAStreet: "moved to 44 Elm Street", "moved into 12b Oak Rd", a house
// number then a street's name: a move of home that tells its address.
func toAStreet(rest []token) bool {
	if len(rest) < 3 || rest[0].w != "to" && rest[0].w != "into" || rest[0].end || rest[1].end ||
		rest[1].w[0] < '0' || rest[1].w[0] > '9' || !rest[2].cap {
		return false
	}
	for _, t := range rest[2:min(6, len(rest))] {
		if slices.Contains(streets, t.w) {
			return true
		}
		if t.end {
			break
		}
	}
	return false
}

// nameWords are the words of the name toks start with, its capitalised
// words up to the clause's end, and of the name after "from" if one
// follows: what "moved to Neovim from VS Code" names.
func nameWords(toks []token) []string {
	var out []string
	for i := 0; i < len(toks) && len(out) < 6; i++ {
		t := toks[i]
		if !t.cap {
			if t.w != "from" || t.end || i+1 == len(toks) || !toks[i+1].cap {
				break
			}
			continue
		}
		out = append(out, t.w)
		if t.end {
			break
		}
	}
	return out
}

// capsAt is how many capitalised words toks start with, up to three and
// the clause's end: the name "Acme Corp" in "Acme Corp and joined".
func capsAt(toks []token) int {
	n := 0
	for n < min(3, len(toks)) && toks[n].cap {
		n++
		if toks[n-1].end {
			break
		}
	}
	return n
}

// toOrFrom: "switched to Postgres", "migrated billing from MySQL"; not
// "switched off the TV".
func toOrFrom(rest []token) bool {
	for _, t := range rest[:min(4, len(rest))] {
		if t.w == "to" || t.w == "from" {
			return true
		}
		if t.end {
			break
		}
	}
	return false
}

var jobs = []string{"job", "jobs", "company", "firm", "employer", "startup", "agency", "careers"}

// aJob: "quit my job", "left the company", "joined a startup called
// Lumen", "left Acme and joined Lumen", "joined Lumen as a designer",
// "switched jobs in January", "got a new job at Stripe"; not "left the
// company car", "left Berlin", "joined Strava", "got a job offer".
func aJob(rest []token) bool {
	if name := capsAt(rest); name > 0 && name < len(rest) {
		after := rest[name:]
		switch {
		case after[0].w == "as" && !after[0].end && !rest[name-1].end:
			return true
		case len(after) > 2 && !rest[name-1].end && (after[0].w == "and" || after[0].w == "to") &&
			(after[1].w == "joined" || after[1].w == "join") && after[2].cap:
			return true
		}
	}
	for i, t := range rest[:min(4, len(rest))] {
		if slices.Contains(jobs, t.w) {
			return t.end || i+1 == len(rest) || slices.Contains([]string{"at", "to", "for", "with", "and", "in", "as", "after",
				"because", "called", "named", "last", "this", "yesterday", "today", "so", "but"}, rest[i+1].w)
		}
		if t.end {
			break
		}
	}
	return false
}

// framesOf are the frames tokens of a text tell a change of by its writer.
func framesOf(toks []token) []*changeFrame {
	if tellsOfThePast(toks) {
		return nil
	}
	return framesIn(toks)
}

// framesIn is framesOf for tokens already read as no earlier life.
func framesIn(toks []token) []*changeFrame {
	var out []*changeFrame
	for fi := range changeFrames {
		f := &changeFrames[fi]
		for i, t := range toks {
			subject := writerIsSubject
			if f.subject != nil {
				subject = f.subject
			}
			if slices.Contains(f.verbs, t.w) && !t.end && subject(toks[:i]) && !would(toks[:i], t.w) && f.after(toks[i+1:]) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// framePrefix marks a key a note holds as the state it tells a change of,
// not as a word of its own: keyword mode, which looks for the question's
// own words, does not find it; hybrid looks for it beside the word when it
// expands the question's words (withFrames).
const framePrefix = "\x01"

// frameWords are the index keys of every frame's words, and whether the
// frame is plain.
var frameWords = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range changeFrames {
		for _, k := range textkeys.Keys(f.words) {
			m[k] = f.plain
		}
	}
	return m
}()

// frameKeys are the index keys of the words of the states a text tells a
// change of, nil when it tells of none.
func frameKeys(text string) []string {
	if !mayTellOfChange(text) {
		return nil
	}
	frames := framesOf(tokensOf(text))
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
// frame key as an alternative, worth the word itself; and a term one of
// whose alternatives names one ("employer", whose kind is "work") that
// state's key, worth the alternative.
func withFrames(terms []keywordindex.Term) {
	for i, t := range terms {
		if _, ok := frameWords[t.Key]; ok {
			terms[i].Alts = append(terms[i].Alts, keywordindex.Alt{Key: framePrefix + t.Key, Weight: 1})
		}
		for _, a := range t.Alts {
			key := framePrefix + a.Key
			if _, ok := frameWords[a.Key]; ok && !slices.ContainsFunc(terms[i].Alts, func(b keywordindex.Alt) bool { return b.Key == key }) {
				terms[i].Alts = append(terms[i].Alts, keywordindex.Alt{Key: key, Weight: a.Weight})
			}
		}
	}
}

// stateTerms are the bits of the terms (of the first 64) that name a
// state a change may be told of: "use", "live".
func stateTerms(kwTerms []keywordindex.Term) uint64 {
	var bits uint64
	for i, t := range kwTerms[:min(64, len(kwTerms))] {
		for _, a := range t.Alts {
			if strings.HasPrefix(a.Key, framePrefix) {
				bits |= 1 << i
			}
		}
	}
	return bits
}

// framed returns the candidates of top that hold a plain frame's key among
// the alternatives of kwTerms: notes telling of a change of the very state
// a question word names ("I moved to Seattle" for "live"), none when the
// question names no such state; and the bits of the terms that name one.
func framed(idx *keywordindex.Index, top []Candidate, kwTerms []keywordindex.Term) (uint64, map[int64]bool) {
	var keys []string
	var states uint64
	for i, t := range kwTerms {
		for _, a := range t.Alts {
			if key, ok := strings.CutPrefix(a.Key, framePrefix); ok && frameWords[key] && len(keys) < 64 {
				keys = append(keys, a.Key)
				if i < 64 {
					states |= 1 << i
				}
			}
		}
	}
	out := map[int64]bool{}
	if len(keys) == 0 {
		return 0, out
	}
	seqs := make([]int64, len(top))
	for i, c := range top {
		seqs[i] = c.Seq
	}
	for i, m := range idx.Held(seqs, keys, 0, nil, nil) {
		if m != 0 {
			out[seqs[i]] = true
		}
	}
	return states, out
}

package retrieval

import (
	"math/bits"

	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
)

// What holds now: which questions ask for it, and how a correction then
// takes the place of the note it corrects.

// currentCues are question words asking for what holds now: a correction
// answers those before the fact it corrects.
var currentCues = map[string]bool{"now": true, "current": true, "currently": true, "still": true,
	"anymore": true, "latest": true, "nowadays": true, "today": true, "new": true, "changed": true}

// cueWeight is the share of its weight a word asking what holds now
// ("current", "still") keeps beside one other question word (rerank).
const cueWeight = 0.25

// presentAsks are the first words of a yes-or-no question in the present,
// and the second or third of a question in the present asking what,
// where or who ("Where do I live?", "What is my phone number?").
var presentAsks = map[string]bool{"is": true, "are": true, "am": true, "do": true, "does": true}

// asksNow reports whether a question's words ask what holds now: a cue
// ("now", "still") or a yes-or-no question in the present ("Is my
// appointment on the 12th?", "Do I use Vim?"); present, whether it asks
// for a thing in the present ("Where do I live?", "What is my phone
// number?"). The latter asks what holds now too, but only a change told
// of the state it asks about (a frame: "I moved to Seattle" for "live")
// is taken to answer it: "Correction: the public API rate limit is now
// 1,000" is no answer to "what is the internal API rate limit", and
// taking every correction that shares half the words so cost the WordNet
// evaluation's design half four first citations (114 to 110).
func asksNow(words []string) (now, present bool) {
	for _, w := range words {
		if currentCues[w] {
			return true, true
		}
	}
	switch {
	case len(words) > 0 && presentAsks[words[0]]:
		return true, true
	case len(words) > 1 && lexicon.QuestionWord(words[0]):
		// A question asking for a thing rather than yes or no.
		return false, presentAsks[words[1]] || len(words) > 2 && presentAsks[words[2]]
	}
	return false, false
}

// weighed is what the rerank read of a question and its best candidates,
// by which supersede tells what corrects what.
type weighed struct {
	heldBy  map[int64]uint64 // by seq, the question words each holds by its own key
	weights []float64        // each question word's
	names   uint64           // the words naming someone or something asked about (nameTerms)
	times   uint64           // the words naming a day or a month asked about
	cues    uint64           // the words asking what holds now ("still"), which every correction holds
	self    map[int64]bool   // the user's own notes, where asked of the user
}

// weigh is the weight of the question words of the bits m.
func (q weighed) weigh(m uint64) float64 {
	w := 0.0
	for ; m != 0; m &= m - 1 {
		w += q.weights[bits.TrailingZeros64(m)]
	}
	return w
}

// supersede puts a correction among the best candidates right above the
// best-ranked older note it corrects, for a question asking what holds
// now: the correction holds every name the question asks about and at
// least half the question's word weight the older note holds (q), so that "I moved to Berlin" corrects "I live
// in Paris" for "Where do I live now?", and the newer of two corrections
// comes first. The correction takes the older note's score, whatever it
// holds beside: "Which database does billing use now?" reads "We migrated
// billing to Postgres" before "The team uses MySQL for billing", which
// holds more of its words. For every question alike, sharing a word
// proved too little to tell what corrects what: on the design halves the
// first hit fell from 0.436 to 0.359 (LoCoMo, learnings) and the WordNet
// evaluation's MRR from 0.83 to 0.79; for these questions neither moved.
//
// When only is not nil (a question in the present without a cue), only
// the corrections it holds may supersede, and only a note with which they
// share a question word beside those naming a state a change is told of
// (stateBits: "live", "work"). Neither a state nor a day or month asked
// about (q.times) need be held by the correction: it tells them anew.
//
// Asked of the user (q.self: their own notes), the user's own change of a
// state their older note holds, or of a thing the question names that it
// holds, is news of it whatever else that note holds: "I moved to Paris"
// corrects "I live in Berlin" for "Do I still live in Berlin?", where the
// city asked about is the one the change replaced, and "I sold my Civic"
// corrects "I drive a Honda Civic" for "Do I still drive the Civic?".
func (e *Engine) supersede(top []Candidate, q weighed, stateBits uint64, only map[int64]bool) {
	corrects := func(c, f Candidate) bool {
		held, hers := q.heldBy[f.Seq], q.heldBy[c.Seq]
		// Every correction holds the words asking what holds now
		// ("still"): shared, they tell nothing of what it corrects. "I
		// stopped the PT" is no news of "Dr. Alvarez took me off
		// metformin" for "Do I still take metformin?".
		held, hers = held&^q.cues, hers&^q.cues
		switch {
		case f.Seq >= c.Seq || held == 0:
			return false
		case q.self[c.Seq] && q.self[f.Seq] && held&(stateBits|q.names)&hers != 0:
			return true
		case hers&q.names != q.names:
			return false
		case only != nil && held&^stateBits != 0 && held&^stateBits&hers == 0:
			// Asked without a cue, the change shares a word with the
			// older note beside the state it tells of, where that note
			// holds one: "We switched to GitHub Actions for CI" is no
			// news of "We use Postgres for the database", nor my move of
			// where my brother lives.
			return false
		}
		if held&^stateBits != 0 {
			// The state asked of ("use" in "What editor do I use
			// now?") is what a change tells in other words ("my
			// editor is now Zed"): the rest is what it must share.
			held &^= stateBits
		}
		if held&^q.times != 0 {
			// So is a day or month asked of: "Yoga moved to
			// Wednesdays" is news of "I go to yoga every Tuesday".
			held &^= q.times
		}
		return q.weigh(held&hers) >= q.weigh(held)/2
	}
	for j := 0; j < len(top); j++ {
		c := top[j]
		if !e.isCorrection(c.Seq) || only != nil && !only[c.Seq] {
			continue
		}
		moved := false
		for i := range j {
			if corrects(c, top[i]) {
				c.Score, c.Supersedes = top[i].Score, top[i].Seq
				copy(top[i+1:j+1], top[i:j])
				top[i] = c
				moved = true
				break
			}
		}
		for i := j + 1; i < len(top) && !moved; i++ {
			// Already above the note it corrects: it still answers for it.
			if corrects(c, top[i]) {
				top[j].Supersedes = top[i].Seq
				break
			}
		}
	}
}

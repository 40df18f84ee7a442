package retrieval

import (
	"cmp"
	"slices"
	"strings"

	"github.com/openhuman-go/openhuman-go/services/memory/answer"
	"github.com/openhuman-go/openhuman-go/services/memory/keywordindex"
	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
)

// A note in which its writer tells they parted with a thing by its name
// ("I sold my Civic and bought a Tesla", "I left Acme and joined Lumen",
// "We switched from Jira to Linear") takes that name's older notes of the
// user's out of what holds now, whatever words the question shares with
// either: "I drive a Honda Civic" no longer answers "What car do I drive?"
// alone, nor does "My manager at Acme is Priya" answer "Who is my
// manager?" before "My manager at Lumen is Tomas". The frames (frames.go)
// know a change by the state it tells of ("live", "work"); this knows it
// by the name it gives up, which a question need not say.

// parted are, by note, the index keys of the names a loose note's writer
// tells they parted with (partedWith), kept as the keyword index reads the
// store. Turns of a conversation are left out: their speakers are seldom
// the user who asks.
type parted map[int64][]string

func (p *parted) add(seq int64, text string) {
	if keys := partedWith(text); keys != nil {
		if *p == nil {
			*p = parted{}
		}
		(*p)[seq] = keys
	}
}

func (p parted) remove(seq int64) { delete(p, seq) }

// partingVerbs give up what follows them ("sold my Civic", "left Acme",
// "cancelled Netflix"); fromVerbs what follows their "from" ("moved from
// Berlin", "switched to Linear from Jira").
var (
	partingVerbs = map[string]bool{"sold": true, "traded": true, "replaced": true, "ditched": true, "scrapped": true,
		"quit": true, "left": true, "cancelled": true, "canceled": true, "gave": true, "got": true, "stopped": true}
	// withVerbs part with someone: "broke up with Sophie", "Sophie and I
	// broke up", "divorced Tom".
	withVerbs = map[string]bool{"broke": true, "split": true, "divorced": true, "separated": true}
	fromVerbs = map[string]bool{"moved": true, "switched": true, "migrated": true, "relocated": true}
	// partingTriggers are the words without which a text parts with
	// nothing, for the pass over its bytes that most notes end at.
	partingTriggers = func() map[string]bool {
		m := map[string]bool{}
		for _, verbs := range []map[string]bool{partingVerbs, withVerbs, fromVerbs} {
			for w := range verbs {
				m[w] = true
			}
		}
		return m
	}()
)

// partedWith are the index keys of the names a text's writer tells they
// parted with, nil for none: a capitalised name right after a parting
// verb of theirs, past "my", "the", "in", a year ("sold my 2012 Honda
// Civic"), or "my job at" ("quit my job at Acme"); or after the "from" of
// a move or a switch. Not another's ("My sister sold her Civic"), not a
// thing without a name ("I sold my car"), not an earlier life ("When I
// was ten we moved from Ohio").
func partedWith(text string) []string {
	if !holdsWordOf(text, partingTriggers) {
		return nil
	}
	toks := tokensOf(text)
	if tellsOfThePast(toks) {
		return nil
	}
	var names []string
	for i, t := range toks {
		if !partingTriggers[t.w] || !writerIsSubject(toks[:i]) || would(toks[:i], t.w) {
			continue
		}
		if withVerbs[t.w] {
			names = append(names, partedWithSomeone(toks[:i], t, toks[i+1:])...)
			continue
		}
		if t.end {
			continue
		}
		rest := toks[i+1:]
		if fromVerbs[t.w] {
			rest = afterFrom(rest)
		} else {
			rest = partedObject(t.w, rest)
		}
		names = append(names, nameAt(t.w, rest)...)
	}
	if len(names) == 0 {
		return nil
	}
	return textkeys.Keys(names)
}

// partedWithSomeone is the name of whom the writer broke up, split up,
// separated or divorced: after "with" ("broke up with Sophie"), right
// after "divorced", or before "and I" ("Sophie and I broke up"); nil
// for none ("the band broke up", "I split the bill").
func partedWithSomeone(before []token, verb token, rest []token) []string {
	if verb.w == "broke" || verb.w == "split" {
		if len(rest) == 0 || rest[0].w != "up" {
			return nil
		}
		verb, rest = rest[0], rest[1:]
	}
	if !verb.end && len(rest) > 1 && rest[0].w == "with" {
		return nameAt("", rest[1:])
	}
	if !verb.end && verb.w == "divorced" {
		return nameAt("", rest)
	}
	// "Sophie and I": the one word before, a name. Not the words before
	// it, which may only open the sentence ("Yesterday Sophie and I").
	n := len(before)
	if n >= 3 && before[n-1].w == "i" && before[n-2].w == "and" && !before[n-3].end &&
		before[n-3].cap && !answer.TimeWord(before[n-3].w) {
		return []string{before[n-3].w}
	}
	return nil
}

// partedObject is rest from the thing a parting verb gives up: past the
// particle some of them need ("gave up", "gave away", "got rid of",
// "stopped using", "traded in"), a possessive or article, a year, and a
// job's words ("my job at"); nil when the verb gives up nothing here ("got
// a new job", "gave her a call").
func partedObject(verb string, rest []token) []token {
	skip := func(words ...string) bool {
		if len(rest) > 1 && !rest[0].end && slices.Contains(words, rest[0].w) {
			rest = rest[1:]
			return true
		}
		return false
	}
	switch verb {
	case "gave":
		if !skip("up", "away") {
			return nil
		}
	case "got":
		if !skip("rid") || !skip("of") {
			return nil
		}
	case "stopped":
		if !skip("using", "seeing", "visiting") {
			return nil
		}
	case "traded":
		skip("in")
	}
	skip("my", "our", "the", "a", "an")
	if len(rest) > 1 && answer.Holds(answer.Number, rest[0].w) && !rest[0].end {
		rest = rest[1:]
	}
	if (verb == "quit" || verb == "left") && len(rest) > 2 && slices.Contains(jobs, rest[0].w) && !rest[0].end &&
		(rest[1].w == "at" || rest[1].w == "with") {
		rest = rest[2:]
	}
	return rest
}

// afterFrom is rest from the name after its "from" (and "the"), in the
// same clause and within eight words; nil when it has none.
func afterFrom(rest []token) []token {
	for i, t := range rest[:min(8, len(rest))] {
		if t.end {
			break
		}
		if t.w == "from" && i+1 < len(rest) {
			rest = rest[i+1:]
			if len(rest) > 1 && rest[0].w == "the" && !rest[0].end {
				rest = rest[1:]
			}
			return rest
		}
	}
	return nil
}

// nameAt are the words of the name toks start with, when it is the whole
// of what is parted with: up to three capitalised words in one clause,
// none a month, a day or "I", nor a possessive ("left Acme's office"),
// then the clause's end or a word that ends the thing named ("and", "in",
// "for"): not "sold my Apple shares". "left" asks more (leftForGood).
func nameAt(verb string, toks []token) []string {
	n := 0
	for n < min(3, len(toks)) {
		t := toks[n]
		if !t.cap || t.w == "i" || answer.TimeWord(t.w) || strings.ContainsAny(t.w, "'’") {
			break
		}
		n++
		if t.end {
			break
		}
	}
	if n == 0 {
		return nil
	}
	if !toks[n-1].end && n < len(toks) {
		next := toks[n].w
		switch {
		case verb == "left":
			if !leftForGood(toks[n:]) {
				return nil
			}
		case endsTies[verb] && ties[next] && (toks[n].end || n+1 < len(toks) && nameEnds[toks[n+1].w]):
			// "cancelled my Netflix subscription", "canceled the
			// Crunch membership": the tie to the name is what ends.
		case !nameEnds[next]:
			return nil
		}
	}
	out := make([]string, n)
	for i, t := range toks[:n] {
		out[i] = t.w
	}
	return out
}

// ties are what binds a user to a named thing, and endsTies the verbs by
// which ending one parts with the name: a membership, a subscription or
// an account cancelled is the gym, the paper or the service given up. Not
// for a sale ("sold my Apple shares" gives up no Apple).
var (
	ties     = map[string]bool{"membership": true, "subscription": true, "account": true, "plan": true, "contract": true, "lease": true}
	endsTies = map[string]bool{"cancelled": true, "canceled": true, "quit": true, "ditched": true}
)

// leftForGood reports whether what follows the name after "left" tells
// a parting, not a trip ("left Lisbon on Tuesday", "left Berlin for a
// week", "left Acme's office at 6"): "and" then a new job or home ("left
// Acme and joined Lumen"), "to" then one ("left Acme to join Lumen"),
// "for good", or "in" or "after" then a year, a month or a count ("left
// Berlin in 2019", "left Acme after five years").
func leftForGood(after []token) bool {
	if len(after) < 2 {
		return false
	}
	next := after[1]
	switch after[0].w {
	case "and":
		return slices.Contains([]string{"joined", "moved", "started", "took", "relocated", "went", "founded"}, next.w)
	case "to":
		return slices.Contains([]string{"join", "work", "start", "move", "found", "launch"}, next.w)
	case "for":
		return next.w == "good"
	case "in", "after":
		return answer.Holds(answer.Number, next.w) || answer.TimeWord(next.w)
	}
	return false
}

// nameEnds are the words after a name that end the thing parted with.
var nameEnds = map[string]bool{"and": true, "or": true, "but": true, "to": true, "for": true, "in": true, "on": true,
	"at": true, "last": true, "after": true, "because": true, "when": true, "since": true, "this": true,
	"yesterday": true, "today": true, "so": true, "with": true, "then": true, "earlier": true, "recently": true}

// firstPersonKeys are the index keys of the words by which a note is the
// user's own: "I drive a Civic", "My manager is Priya", "We use Jira".
var firstPersonKeys = textkeys.Keys([]string{"i", "me", "my", "we", "our", "user"})

// asksOfUser reports whether a question's words ask of the user: "What
// car do I drive?", "Who is my manager?", "What do we use for CI?".
func asksOfUser(words []string) bool {
	return slices.ContainsFunc(words, func(w string) bool {
		return lexicon.FirstPersonWord(w) || lexicon.Ours(w) || w == "we"
	})
}

// partedFrom reorders the first m of order (the reranked best, for a
// question asking of the user what holds now) where a later note of the
// user's parts with a name an older note of theirs among them holds, the
// question not naming it: the older note goes below the first later
// candidate not so stale that holds as much of the question ("My manager
// at Lumen is Tomas" before "My manager at Acme is Priya"), and the
// parting note right above it with its score, as correcting it
// (Candidate.Supersedes), brought in from further down or from outside
// the candidates when it is not among them, where the caller may read it
// (mayRank). It returns order, longer by one for each note brought in.
func (e *Engine) partedFrom(idx *keywordindex.Index, q Query, terms []string, order []Candidate, m int, read weighed) []Candidate {
	type parting struct {
		seq  int64
		keys []string
	}
	asked := textkeys.Keys(terms)
	all := func() (all []parting) {
		st := &e.keywords
		st.mu.Lock()
		defer st.mu.Unlock()
		for seq, ks := range st.parted {
			if seq > q.AsOf || !mayRank(q, seq) {
				continue
			}
			var own []string
			for _, k := range ks {
				if !slices.Contains(asked, k) {
					own = append(own, k)
				}
			}
			if len(own) > 0 {
				all = append(all, parting{seq, own})
			}
		}
		return all
	}()
	if len(all) == 0 {
		return order
	}
	// The newest partings, as many as one look-up of 64 keys holds.
	slices.SortFunc(all, func(a, b parting) int { return cmp.Compare(b.seq, a.seq) })
	var parts []parting
	var keys []string
	var masks []uint64 // by part, the bits of its keys among keys
	for _, p := range all {
		if len(keys)+len(p.keys) > 64 {
			break
		}
		masks = append(masks, (1<<len(p.keys)-1)<<len(keys))
		parts = append(parts, p)
		keys = append(keys, p.keys...)
	}
	seqs := make([]int64, m)
	for i, c := range order[:m] {
		seqs[i] = c.Seq
	}
	mine := idx.Held(seqs, firstPersonKeys, 0, nil, nil)
	held := idx.Held(seqs, keys, 0, nil, nil)
	stale := map[int64]int64{} // an older note → the newest later note parting with a name it holds
	for i, c := range order[:m] {
		if mine[i] == 0 || held[i] == 0 || slices.ContainsFunc(order[:m], func(o Candidate) bool { return o.Supersedes == c.Seq }) {
			continue
		}
		for j, p := range parts {
			if p.seq > c.Seq && held[i]&masks[j] != 0 && p.seq > stale[c.Seq] {
				stale[c.Seq] = p.seq
			}
		}
	}
	done := map[int64]bool{}
	for i := 0; i < m; i++ {
		f := order[i]
		p, ok := stale[f.Seq]
		if !ok || done[f.Seq] {
			continue
		}
		done[f.Seq] = true
		weight := read.weigh(read.heldBy[f.Seq])
		at := i // where f goes
		if fresh := slices.IndexFunc(order[i+1:m], func(g Candidate) bool {
			_, old := stale[g.Seq]
			return !old && g.Seq != p && read.weigh(read.heldBy[g.Seq]) >= weight
		}); fresh >= 0 {
			at = i + 1 + fresh
			f.Score = order[at].Score
			copy(order[i:at], order[i+1:at+1])
			order[at] = f
		}
		// The parting note answers for it, right above it.
		switch k := slices.IndexFunc(order, func(c Candidate) bool { return c.Seq == p }); {
		case k >= 0 && k < at:
			if order[k].Supersedes == 0 {
				order[k].Supersedes = f.Seq
			}
		case k > at:
			c := order[k]
			c.Score, c.Supersedes = f.Score, f.Seq
			copy(order[at+1:k+1], order[at:k])
			order[at] = c
			if k >= m {
				m++
			}
		default:
			order = slices.Insert(order, at, Candidate{Seq: p, Score: f.Score, Supersedes: f.Seq})
			m++
		}
		if at > i {
			i-- // what moved up into i is yet to be read
		}
	}
	return order
}

package retrieval

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
)

// kindConversation is the kind of an item that is a turn of a conversation;
// its text is "speaker: what they said" when the speaker is known.
const kindConversation = "conversation"

// indexText is what the keyword index holds of an item: its text, and for
// a turn of a conversation the day, month and year it was said, so that
// "in May 2023", "camping in June" and "on 13 October" find the turns of
// that time as a note that names its date would be found. A
// loose note's time is when it was learned, which says nothing of what
// it is about. The names a text speaks to ("Thanks, Maya!") are left out
// of the text and returned as keys of their own (spoken.go): a question
// naming Maya is about what is said of her (on the LoCoMo design half,
// recall@5 as learnings 0.588 -> 0.598).
func indexText(c ItemChange, p Profile) (string, []string) {
	text, keys := c.Text, []string(nil)
	if p.On(SwitchSpokenTo) {
		var names []string
		text, names = lexicon.SplitNamesSpokenTo(c.Text)
		keys = spokenKeys(names)
	}
	if c.ThreadID == "" || c.ObservedAt <= 0 || !p.On(SwitchDates) {
		return text, keys
	}
	t := time.UnixMilli(c.ObservedAt).UTC()
	return text + "\n" + strconv.Itoa(t.Day()) + " " + t.Month().String() + " " + strconv.Itoa(t.Year()), keys
}

// turn is what retrieval knows of a turn of a conversation: who said it
// (their name's index keys) and the turns before and after it in its
// thread (0 for none).
type turn struct {
	speaker    []string
	thread     string
	asks       bool
	prev, next int64
}

// turnState follows the conversations' turns as the keyword index reads
// them. Only turns are kept: a loose note has no thread.
type turnState struct {
	bySeq    map[int64]*turn
	newest   map[string]int64 // thread → its newest turn's seq
	speakers map[string]int   // a speaker's name key → turns they said
}

// maxSpeaker bounds the prefix of a turn's text taken as its speaker.
const maxSpeaker = 64

// speakerOf is the speaker a conversation item's text starts with ("Maya:
// ..."), "" when it names none.
func speakerOf(text string) string {
	i := strings.Index(text, ": ")
	if i <= 0 || i > maxSpeaker || strings.ContainsAny(text[:i], "\n") {
		return ""
	}
	return text[:i]
}

func (ts *turnState) add(c ItemChange) {
	if c.ThreadID == "" || c.Kind != kindConversation {
		return
	}
	if ts.bySeq == nil {
		ts.bySeq, ts.newest, ts.speakers = map[int64]*turn{}, map[string]int64{}, map[string]int{}
	}
	t := &turn{speaker: textkeys.Keys([]string{speakerOf(c.Text)}), thread: c.ThreadID, asks: strings.HasSuffix(strings.TrimSpace(c.Text), "?")}
	for _, k := range t.speaker {
		ts.speakers[k]++
	}
	// Turns are stored in the order they were said, so the thread's newest
	// turn is the one before.
	if p, ok := ts.newest[c.ThreadID]; ok {
		if pt := ts.bySeq[p]; pt != nil {
			t.prev, pt.next = p, c.Seq
		}
	}
	ts.newest[c.ThreadID] = c.Seq
	ts.bySeq[c.Seq] = t
}

func (ts *turnState) remove(seq int64) {
	t := ts.bySeq[seq]
	if t == nil {
		return
	}
	for _, k := range t.speaker {
		if ts.speakers[k]--; ts.speakers[k] <= 0 {
			delete(ts.speakers, k)
		}
	}
	if p := ts.bySeq[t.prev]; p != nil {
		p.next = t.next
	}
	if n := ts.bySeq[t.next]; n != nil {
		n.prev = t.prev
	}
	delete(ts.bySeq, seq)
	if ts.newest[t.thread] == seq {
		if t.prev != 0 {
			ts.newest[t.thread] = t.prev
		} else {
			delete(ts.newest, t.thread)
		}
	}
}

// askDiscount is what a turn that asks (it ends in a question mark) holds
// of a question's words, for ranking: the question asked in a
// conversation is seldom its answer, and the turn after it holds its
// words as context (contextWeight). Set on the LoCoMo design half: 0.9,
// 0.8 and 0.6 all gave recall@5 0.661 (0.659 without), first hit 0.434,
// 0.446, 0.446 (0.426).
const askDiscount = 0.8

// speakerHeld adjusts held (by candidate, then term: the weight of what
// the candidate holds of each question word) for the question words that
// name a speaker of memory's conversations (ownKeys: each word's keys): a
// turn holds the name when its speaker has it, and only then. A question
// about what Maya did is answered by what Maya said, not by the turns
// that thank her ("Thanks, Maya!"); counting those for even a third of
// the name lost 0.006 of recall@5 on the evaluation's design half.
// Candidates that are no turn keep what they hold. With asked, a turn that
// asks holds askDiscount of what it holds.
func (e *Engine) speakerHeld(seqs []int64, ownKeys [][]string, held []float64, asked bool) {
	st := &e.keywords
	st.mu.Lock()
	defer st.mu.Unlock()
	ts := &st.turns
	if len(ts.speakers) == 0 {
		return
	}
	nt := len(ownKeys)
	var names []int
	for j, ks := range ownKeys {
		if len(ks) == 1 && ts.speakers[ks[0]] > 0 {
			names = append(names, j)
		}
	}
	if len(names) == 0 && !asked {
		return
	}
	for i, seq := range seqs {
		t := ts.bySeq[seq]
		if t == nil {
			continue
		}
		if asked && t.asks {
			for j := range nt {
				held[i*nt+j] *= askDiscount
			}
		}
		for _, j := range names {
			if slices.Contains(t.speaker, ownKeys[j][0]) {
				held[i*nt+j] = 1
			} else {
				held[i*nt+j] = 0
			}
		}
	}
}

// A turn is often the answer to the one before it ("They loved the
// dinosaurs!" after "How were the kids at the museum?"): it is found with
// what that turn asked. The rerank reads, beside its best candidates, the
// turns that answer them (withAnswers), and a turn holds each question
// word its turn before holds, for contextWeight of it, and the one before
// that for contextWeight squared (contextTurns; set on the design half of
// the LoCoMo evaluation: one turn back 0.637 of recall@5, two 0.659,
// three 0.656; with one turn, weights 0.3, 0.5, 0.7 and 1 were below
// 0.8). That ranks; the share a turn holds itself (Candidate.Coverage) is
// what an answer may quote it for, so that recall does not answer from a
// turn for the words of another.
const (
	contextWeight = 0.8
	contextTurns  = 2
)

// withAnswers inserts after the first n of order the turns that answer
// them (the turn after each), when they are no candidate yet and q may
// rank them; n grows by as many.
func (e *Engine) withAnswers(q Query, order []Candidate, n int) ([]Candidate, int) {
	add := e.answersOf(q, order[:n])
	for _, seq := range add {
		x := Candidate{Seq: seq}
		if i := slices.IndexFunc(order[n:], func(o Candidate) bool { return o.Seq == seq }); i >= 0 {
			x = order[n+i]
			order = slices.Delete(order, n+i, n+i+1)
		}
		order = slices.Insert(order, n, x)
		n++
	}
	return order, n
}

// answersOf are the turns answering those of top that q may rank and
// that are not among top.
func (e *Engine) answersOf(q Query, top []Candidate) []int64 {
	st := &e.keywords
	st.mu.Lock()
	defer st.mu.Unlock()
	var add []int64
	for _, c := range top {
		t := st.turns.bySeq[c.Seq]
		if t == nil || t.next == 0 || t.next > q.AsOf || !mayRank(q, t.next) {
			continue
		}
		if !slices.ContainsFunc(top, func(o Candidate) bool { return o.Seq == t.next }) && !slices.Contains(add, t.next) {
			add = append(add, t.next)
		}
	}
	return add
}

// mayRank reports whether q may rank the item seq: it passes the read's
// filter and scope.
func mayRank(q Query, seq int64) bool {
	_, allowed := slices.BinarySearch(q.Allowed, seq)
	_, seen := slices.BinarySearch(q.Universe, seq)
	return (q.Allowed == nil || allowed) && (q.Universe == nil || seen)
}

// before returns, for each of seqs, the up to k turns before it in its
// thread, nearest first; nil when memory holds no turn.
func (e *Engine) before(seqs []int64, k int) [][]int64 {
	st := &e.keywords
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.turns.bySeq) == 0 {
		return nil
	}
	out := make([][]int64, len(seqs))
	for i, s := range seqs {
		for t := st.turns.bySeq[s]; t != nil && t.prev != 0 && len(out[i]) < k; t = st.turns.bySeq[t.prev] {
			out[i] = append(out[i], t.prev)
		}
	}
	return out
}

// userNames are the names a conversation gives the person memory serves
// ("user: …" in a chat with an assistant); lexicon.FirstPersonWord the
// question words that mean them.
var userNames = []string{"user", "me", "human"}

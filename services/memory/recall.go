package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/answer"
	"github.com/openhuman-go/openhuman-go/services/memory/chunking"
	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
	"github.com/openhuman-go/openhuman-go/services/memory/retrieval"
)

// Recall's results are declared in pkg/contract, where memory.recall's
// output schema is generated from them.
type (
	Citation     = contract.Citation
	RecallResult = contract.RecallResult
)

// AnswerInstructions tell a language model how to answer from memory.
const AnswerInstructions = `You answer questions about the user using only the numbered sources, which are notes from their memory.
Cite every statement with the numbers of the sources it comes from, in square brackets: [1] or [2][3].
If the sources do not contain the answer, reply exactly: I don't know.
Do not add anything the sources do not say. Be brief.`

// AnswerWriter writes an answer to a question from numbered sources,
// citing them as [n]. It returns *contract.Error values.
type AnswerWriter interface {
	Model() string
	Write(ctx context.Context, question string, sources []string) (string, error)
}

// recallMinCosine is the vector similarity from which a hit counts as
// relevant without sharing enough words with the question: a misspelled or
// inflected form ("postgress", "deployments") that the keyword leg misses.
// An embedder whose cosines run higher says its own (recallCosined), and
// the configuration may set another (Options.RecallMinCosine).
const recallMinCosine = 0.5

// recallCosined is an embedder that says from which cosine its vectors
// count as close enough for recall.
type recallCosined interface {
	RecallMinCosine() float64
}

func (s *Service) recallMinCosine() float64 {
	if s.recallCosine > 0 {
		return s.recallCosine
	}
	if c, ok := s.embedder.(recallCosined); ok && c.RecallMinCosine() > 0 {
		return c.RecallMinCosine()
	}
	return recallMinCosine
}

// recallMinShare is the share of a question's word weight a hit must
// contain to count as relevant.
const recallMinShare = 0.6

// minShare is recallMinShare for a memory of n items. Below
// retrieval.MinCollection the words of a question weigh about the same,
// its light words ("take", "city") as much as its subject ("sugar"), and
// few notes share words by chance: there recallMinTyped is enough.
func minShare(n int64) float64 {
	if n < retrieval.MinCollection {
		return recallMinTyped
	}
	return recallMinShare
}

// recallMinTyped is the share of a question's word weight enough for a hit
// that also holds the kind of answer the question asks for (a time for
// "when"): a question in other words than the note still shares its rare
// ones and asks for what the note tells.
const recallMinTyped = 0.4

// recallMinTurn is the share a conversation's turn must hold itself when
// with the turns before it (Candidate.InContext: "Adoption agencies!" after
// "What are you researching?") it holds recallMinWithTurns: an answer
// whose question was asked just before. Set on LoCoMo's design half: first
// citation 254 to 264 of 760 from conversations, "I don't know" on the
// adversarial questions 140 to 138 of 237; counting the turns before in
// full instead took that to 126.
const (
	recallMinTurn      = 0.5
	recallMinWithTurns = 0.8
)

// relevant decides whether a hit may be quoted in an answer: it must hold
// enough of the question's word weight (f.coverage, which the rerank
// measured: a WordNet relative of a word counts for its weight), less
// when it holds the kind of answer asked for (t), or be very close in
// vector space.
func relevant(t answer.Type, text string, f retrieval.Candidate, minCosine, share float64) bool {
	if f.InVector && f.Vector >= minCosine {
		return true
	}
	return f.Coverage >= share || f.Coverage >= recallMinTyped && t != answer.Any && answer.Holds(t, text) ||
		f.Coverage >= recallMinTurn && f.InContext >= recallMinWithTurns
}

// fits reports whether a note (text, of it) is about what a question
// asks: the names it asks about (LacksNameAt, in names: the note's text,
// or with a correction the note it corrects too), the person
// (LacksPerson), the attribute (OtherAttribute: a shoe size is no waist
// size), more than whom (OnlyWhom), and not only what the one asked about
// said of another (ToAnother).
func fits(q answer.Asked, it Item, text, names string, named map[string][]string) bool {
	return !q.LacksNameAt(names, it.ObservedAt) && !q.LacksPerson(text, named) && !q.OtherAttribute(text, retrieval.Akin) &&
		!q.OnlyWhom(text, it.Meta.ThreadID == "") && !q.ToAnother(text)
}

// withCorrected is a correction's text read with the note it corrects,
// whose names it answers for: "I moved to Paris" answers "Do I still
// live in Berlin?" as news of "I live in Berlin".
func withCorrected(text string, old Item) string {
	return text + "\n" + quotable(old)
}

// recallAnswerBonus lifts a relevant hit that holds the kind of answer the
// question asks for (services/memory/answer) over one that does not, in the
// rerank's score units (set on the design half of testdata/eval).
const recallAnswerBonus = 0.15

// answerSentences is how many hits the extractive answer quotes.
const answerSentences = 3

// IDontKnow starts every answer given when memory holds nothing relevant.
const IDontKnow = "I don't know"

// Recall answers a question from memory by quoting the most relevant stored
// sentences, each followed by its citation marker. Hits that share too few
// of the question's words are dropped: no answer is better than one built
// from irrelevant notes. Memory is what cc may see; the language model that
// writes the answer is shown only the citations, which are of it.
func (s *Service) Recall(ctx context.Context, p RecallParams, cc contract.CallContext) (*RecallResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	out := &RecallResult{Citations: []Citation{}, Model: "extractive"}
	terms := lexicon.Terms(p.Question)
	self := lexicon.SelfTerms(p.Question)
	if len(terms) == 0 && len(self) == 0 {
		out.Answer = IDontKnow + ": the question has no words to look for in memory."
		return out, nil
	}
	want := limit(p.Limit)
	m, err := s.store.Marks(ctx)
	if err != nil {
		return nil, err
	}
	// Ask for more than we keep so the relevance cut still leaves enough.
	depth := min(3*want, contract.MaxLimit)
	v, err := s.viewOf(ctx, scoped(p.Filter, cc), m, m.Items)
	if err != nil {
		return nil, err
	}
	var ranked []retrieval.Candidate
	if len(self) > 0 {
		if ranked, err = s.aboutUser(ctx, m, self, v, depth); err == nil {
			ranked, err = s.current(ctx, ranked)
		}
		terms = self
	} else {
		ranked, _, err = s.rank(ctx, m, ModeHybrid, p.Question, v, m.Items, depth, depth)
	}
	if err != nil {
		return nil, err
	}
	items, err := s.itemsOf(ctx, ranked)
	if err != nil {
		return nil, err
	}
	// The relevant hits, those holding the kind of answer the question
	// asks for (a time for "when") first when they are about as good.
	type candidate struct {
		it      Item
		f       retrieval.Candidate
		text    string // quotable(it)
		snippet string
		score   float64
	}
	qt := answer.QuestionType(p.Question)
	size := m.Items
	if v.universe != nil {
		size = int64(len(v.universe))
	}
	share := minShare(size)
	// A correction put above a note it corrects answers whatever that note
	// answers, holding the question's words or not.
	rel := make(map[int64]bool, len(ranked))
	asked := answer.Ask(p.Question)
	var named map[string][]string // the names memory gives the user's people
	if asked.OfPeople() {
		if named, err = s.search.PeopleNames(ctx, m, v.universe); err != nil {
			return nil, err
		}
	}
	for _, f := range ranked {
		if it, ok := items[f.Seq]; ok {
			text := quotable(it)
			rel[f.Seq] = text != "" && relevant(qt, text, f, s.recallMinCosine(), share) && fits(asked, it, text, text, named)
		}
	}
	var cands []candidate
	// A note learned twice is quoted once (sameNote).
	said := map[string]bool{}
	for _, f := range ranked {
		it, ok := items[f.Seq]
		if !ok {
			continue
		}
		text := quotable(it)
		if !rel[f.Seq] && (f.Supersedes == 0 || !rel[f.Supersedes] || text == "" || !fits(asked, it, text, withCorrected(text, items[f.Supersedes]), named)) {
			continue
		}
		same := sameNote(answer.ResolveDates(text, it.ObservedAt))
		if said[same] {
			continue
		}
		if len(self) > 0 && !lexicon.FirstPerson(text) {
			continue
		}
		snippet, asks := answer.Quote(terms, qt, text)
		if asks {
			continue // a note asking the question back does not answer it
		}
		c := candidate{it: it, f: f, text: text, snippet: snippet, score: f.Score}
		if qt != answer.Any && (answer.Holds(qt, snippet) || f.Supersedes != 0 && answers(qt, items, f.Supersedes)) {
			// A correction answers what the note it corrects answers:
			// "I moved to Seattle" where "I live in Portland" for "Where
			// do I live?".
			c.score += recallAnswerBonus
		}
		cands = append(cands, c)
		said[same] = true
	}
	slices.SortStableFunc(cands, func(a, b candidate) int { return cmp.Compare(b.score, a.score) })
	var quoted, sources []string
	newer := map[int64]int{} // an older note → the citation of the note quoted above it as changing it
	for _, c := range cands[:min(want, len(cands))] {
		out.Citations = append(out.Citations, Citation{ID: c.it.ID, Kind: c.it.Kind, Snippet: c.snippet, Meta: hitOf(c.it, nil).Meta, Score: c.f.Score})
		n := len(out.Citations)
		dated := answer.Dated(c.snippet, c.text, c.it.ObservedAt)
		sources = append(sources, dated)
		if c.f.Supersedes != 0 {
			if _, ok := newer[c.f.Supersedes]; !ok {
				newer[c.f.Supersedes] = n
			}
		}
		if len(quoted) < answerSentences {
			q := fmt.Sprintf("%s [%d]", strings.TrimRight(dated, " "), n)
			if k, ok := newer[c.f.Seq]; ok {
				// Quoted after the note that changed it, it says so: a
				// reader should not take both for what holds now.
				q += fmt.Sprintf(" (older: [%d] changed it)", k)
			}
			quoted = append(quoted, q)
		}
	}
	switch len(quoted) {
	case 0:
		out.Answer = IDontKnow + ": nothing in memory matches that question."
		return out, nil
	case 1:
		out.Answer = "From memory: " + quoted[0]
	default:
		out.Answer = "From memory:\n- " + strings.Join(quoted, "\n- ")
	}
	if s.writer != nil {
		s.writeAnswer(ctx, p.Question, sources, out)
	}
	return out, nil
}

// answers reports whether the item of seq holds the kind of answer qt.
func answers(qt answer.Type, items map[int64]Item, seq int64) bool {
	it, ok := items[seq]
	return ok && answer.Holds(qt, quotable(it))
}

// sameNote is what two notes saying the same share: their text, its
// relative dates resolved ("tomorrow" learned on two days is two
// appointments), in other spacing, without the final full stop, and with
// the first letter in either case. Other case is kept: "US" is not "us",
// nor "MB" "Mb"; a sign or a slash is no punctuation to drop.
func sameNote(text string) string {
	s := strings.TrimRight(strings.Join(strings.Fields(text), " "), ".!?;:, ")
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// aboutUser ranks the notes a question about the user in stopwords only
// ("Who am I?") may be answered from: those holding its words (self), in
// BM25's order, each counted as fully covering it; recall keeps those
// written in the first person, the kind of answer asked for first.
func (s *Service) aboutUser(ctx context.Context, m Marks, self []string, v view, depth int) ([]retrieval.Candidate, error) {
	hits, err := s.search.Plain(ctx, m, self, depth, m.Items, v.allowed, v.universe)
	if err != nil || len(hits) == 0 {
		return nil, err
	}
	// Holding its words is all a question of stopwords says: its kind of
	// answer (a name for "Who am I?") decides, then BM25's order, scored
	// within less than recallAnswerBonus.
	out := make([]retrieval.Candidate, len(hits))
	for i, h := range hits {
		out[i] = retrieval.Candidate{Seq: h.Seq, Score: 1 - 0.1*float64(i)/float64(len(hits)), Keyword: h.Score, Coverage: 1}
	}
	return out, nil
}

// writeAnswer lets the language model write the answer from the cited
// sources (each citation's snippet, its dates resolved), then checks it: markers that point at no source are removed, an
// answer left citing nothing is not trusted. Whenever the model cannot be
// used, the extractive answer stands and a warning says why.
func (s *Service) writeAnswer(ctx context.Context, question string, sources []string, out *RecallResult) {
	ctx, done := s.phase(ctx, "memory write answer")
	written, err := s.writer.Write(ctx, question, sources)
	done(err)
	if err != nil {
		out.Warnings = append(out.Warnings, "the language model could not be used, so the answer quotes memory: "+contract.ErrorMessage(err))
		return
	}
	written = strings.TrimSpace(written)
	if strings.HasPrefix(strings.ToLower(written), strings.ToLower(IDontKnow)) {
		out.Answer = IDontKnow + ": the notes found do not answer that question."
		out.Citations = []Citation{}
		out.Model = s.writer.Model()
		return
	}
	checked, valid := contract.CheckCitations(written, len(out.Citations))
	if valid == 0 {
		out.Warnings = append(out.Warnings, "the language model's answer cited no note, so the answer quotes memory instead")
		return
	}
	out.Answer, out.Model = checked, s.writer.Model()
}

// quotable is the part of an item an answer may quote: code without its
// package clause and imports, prose with its hard-wrapped lines joined.
func quotable(it Item) string {
	if chunking.IsCode(it.Meta.Language) {
		return chunking.WithoutImports(it.Text)
	}
	return answer.Unwrap(it.Text)
}

// snippet is the sentence of it that best matches query, as recall would
// quote it, its matching words in bold.
func snippet(query string, it Item) string {
	terms := lexicon.Terms(query)
	return answer.Highlight(terms, answer.Sentence(terms, answer.QuestionType(query), quotable(it)))
}

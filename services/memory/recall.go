package memory

import (
	"context"
	"fmt"
	"strings"
	"time"
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
const recallMinShare = 0.65

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
func relevant(p retrieval.Profile, t answer.Type, text string, f retrieval.Candidate, minCosine float64) bool {
	if p.On(retrieval.SwitchCosine) && f.InVector && f.Vector >= minCosine {
		return true
	}
	return f.Coverage >= recallMinShare ||
		p.On(retrieval.SwitchTyped) && f.Coverage >= recallMinTyped && t != answer.Any && answer.Holds(t, text) ||
		p.On(retrieval.SwitchTurnShare) && f.Coverage >= recallMinTurn && f.InContext >= recallMinWithTurns
}

// fits reports whether a note (text, told at) is about what a question
// asks: it holds the names the question asks about (LacksNameAt), and is
// not only what the one asked about said to another (ToAnother).
func fits(p retrieval.Profile, q answer.Asked, text string, at time.Time) bool {
	return !(p.On(retrieval.SwitchNames) && q.LacksNameAt(text, at)) && !(p.On(retrieval.SwitchToAnother) && q.ToAnother(text))
}

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
	if strings.TrimSpace(p.Question) == "" {
		out.Answer = IDontKnow + ": the question has no words to look for in memory."
		return out, nil
	}
	// A question of stopwords only ("Who am I?") has no words to weigh:
	// the vector leg alone may find what answers it.
	terms := lexicon.Terms(p.Question)
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
	ranked, _, err := s.rank(ctx, m, ModeHybrid, p.Question, v, m.Items, depth, depth)
	if err != nil {
		return nil, err
	}
	items, err := s.itemsOf(ctx, ranked)
	if err != nil {
		return nil, err
	}
	cites := s.evidence(p.Question, terms, ranked, items, want)
	var quoted, sources []string
	for _, c := range cites {
		out.Citations = append(out.Citations, c.Citation)
		sources = append(sources, c.dated)
		if len(quoted) < answerSentences {
			quoted = append(quoted, fmt.Sprintf("%s [%d]", strings.TrimRight(c.dated, " "), len(out.Citations)))
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

// cited is a hit an answer quotes, with its snippet dated.
type cited struct {
	Citation
	dated string
}

// evidence is what recall quotes of ranked (fetch's hybrid order): the
// first want hits that are evidence for the question, in that order, a
// note learned twice once (sameNote).
func (s *Service) evidence(question string, terms []string, ranked []retrieval.Candidate, items map[int64]Item, want int) []cited {
	qt := answer.QuestionType(question)
	asked := answer.Ask(question)
	minCosine, p := s.recallMinCosine(), s.search.Profile()
	var out []cited
	said := map[string]bool{}
	for _, f := range ranked {
		it, ok := items[f.Seq]
		if !ok {
			continue
		}
		text := quotable(it)
		if text == "" || !relevant(p, qt, text, f, minCosine) || !fits(p, asked, text, it.ObservedAt) {
			continue
		}
		same := sameNote(answer.ResolveDates(text, it.ObservedAt))
		if said[same] {
			continue
		}
		snippet, asks := answer.Quote(terms, qt, text)
		if asks && p.On(retrieval.SwitchAsksBack) {
			continue // a note asking the question back does not answer it
		}
		said[same] = true
		out = append(out, cited{Citation: Citation{ID: it.ID, Kind: it.Kind, Snippet: snippet, Meta: hitOf(it, nil).Meta, Score: f.Score},
			dated: answer.Dated(snippet, text, it.ObservedAt)})
		if len(out) == want {
			break
		}
	}
	return out
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

package memory_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// newcomerNotes are a newcomer's first notes: a handful, each about one
// thing, and one the smoke tests leave.
var newcomerNotes = []string{
	"I prefer dark roast coffee, black, never with sugar.",
	"My home is in Lisbon; I moved there from Porto in 2021.",
	"We use Postgres 16 as the main database for every service.",
	"HTTP clients can learn too.",
	"I am Dana, a backend engineer who works mostly in Go.",
	"The team standup is at 9:30 on weekdays.",
}

// A question in the user's words shares only its subject with the note
// ("city" is nowhere in memory); recall must answer it from the note, and
// still know nothing of what no note tells.
func TestRecallInAFewNotes(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	for _, n := range newcomerNotes {
		learn(t, svc, n)
	}
	for q, want := range map[string]string{
		"What city is my home?":    "Lisbon",
		"Which database do I use?": "Postgres 16",
	} {
		res, err := svc.Recall(ctx, memory.RecallParams{Question: q}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Citations) == 0 || !strings.Contains(res.Citations[0].Snippet, want) || !strings.Contains(res.Answer, want) {
			t.Errorf("%q: answered %q, want it quoting %q first", q, res.Answer, want)
		}
	}
	for _, q := range []string{"What is the capital of Mongolia?", "Which host runs the billing queue?", "what is it?", "Where do I keep the spare keys?"} {
		res, err := svc.Recall(ctx, memory.RecallParams{Question: q}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(res.Answer, memory.IDontKnow) || len(res.Citations) != 0 {
			t.Errorf("%q: answered %q with %d citations, want I don't know", q, res.Answer, len(res.Citations))
		}
	}
}

// memory.fetch leaves out what holds none of the query's words and is far
// from it in meaning, in hybrid mode, unless min_score says otherwise; the
// single legs' scores have no floor of their own.
func TestFetchRelevanceFloor(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	for _, n := range newcomerNotes {
		learn(t, svc, n)
	}
	fetch := func(p memory.FetchParams) []memory.Hit {
		t.Helper()
		res, err := svc.Fetch(ctx, p, anyone)
		if err != nil {
			t.Fatal(err)
		}
		return res.Hits
	}
	hits := fetch(memory.FetchParams{Query: "coffee"})
	if len(hits) != 1 || !strings.Contains(hits[0].Text, "coffee") {
		t.Fatalf("hybrid: %d hits, want the coffee note alone: %+v", len(hits), hits)
	}
	zero, high := 0.0, 2.0
	if all := fetch(memory.FetchParams{Query: "coffee", MinScore: &zero}); len(all) <= 1 {
		t.Errorf("min_score 0: %d hits, want every ranked one", len(all))
	}
	if none := fetch(memory.FetchParams{Query: "coffee", MinScore: &high}); len(none) != 0 {
		t.Errorf("min_score 2: %d hits", len(none))
	}
	if vec := fetch(memory.FetchParams{Query: "coffee", Mode: memory.ModeVector}); len(vec) <= 1 {
		t.Errorf("vector mode: %d hits, want no floor", len(vec))
	}
	hits = fetch(memory.FetchParams{Query: "dark coffee", Snippets: true})
	if len(hits) == 0 || hits[0].Snippet != "I prefer **dark** roast **coffee**, black, never with sugar." {
		t.Errorf("snippet: %+v", hits)
	}
	if plain := fetch(memory.FetchParams{Query: "dark coffee"}); len(plain) == 0 || plain[0].Snippet != "" {
		t.Errorf("a snippet not asked for: %+v", plain)
	}
}

// A configured recall cosine replaces the embedder's: set low, a note only
// somewhat near the question in vector space is quoted (what a model whose
// unrelated sentences score high does to recall with the default of 0.5);
// the embedder's own keeps "I don't know".
func TestRecallMinCosine(t *testing.T) {
	ctx := context.Background()
	const note, question = "Deploys to production happen on Tuesdays after the standup.", "what happens after the meeting"
	for _, c := range []struct {
		cosine float64
		idk    bool
	}{{0, true}, {0.3, false}} {
		st := sqlite.New(filepath.Join(t.TempDir(), "memory.db"))
		if err := st.Open(); err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		svc := memory.NewService(st, &memory.Options{Embedder: localembed.NewGloveEmbedder(0), RecallMinCosine: c.cosine})
		// Among a few notes, sharing one of the question's two words is
		// enough (TestRecallInAFewNotes); among a hundred it is not, and
		// the cosine decides.
		for i := range 100 {
			learn(t, svc, fmt.Sprintf("Shelf %d holds box %d of winter clothes.", i, i))
		}
		learn(t, svc, note)
		res, err := svc.Recall(ctx, memory.RecallParams{Question: question}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.HasPrefix(res.Answer, memory.IDontKnow); got != c.idk {
			t.Errorf("recall cosine %g: %q, want I don't know: %v", c.cosine, res.Answer, c.idk)
		}
	}
}

// A note that asks the question back holds its words, not its answer:
// recall quotes the note that answers it, or says it does not know.
func TestRecallDoesNotQuoteAQuestion(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	learn(t, svc, "Which region hosts the billing queue? Nobody wrote it down.")
	learn(t, svc, "Did you rotate the staging password?")
	learn(t, svc, "The staging password rotates every Friday, at noon. Ask Ana if it did not.")
	res, err := svc.Recall(ctx, memory.RecallParams{Question: "Which region hosts the billing queue?"}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Answer, memory.IDontKnow) {
		t.Errorf("answered %q from a note asking the same, want I don't know", res.Answer)
	}
	res, err = svc.Recall(ctx, memory.RecallParams{Question: "When does the staging password rotate?"}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Citations) != 1 || !strings.Contains(res.Citations[0].Snippet, "every Friday") {
		t.Errorf("answered %q with %+v, want the note that answers it alone", res.Answer, res.Citations)
	}
}

// A question word that is an English word is taken as meant: "grandpa"
// is no typo of the "grandma" a note holds. A word that is none
// ("grandmaa") still is.
func TestAWordIsNoTypoOfItsNeighbour(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	learn(t, svc, "Grandma gave me a silver necklace for my birthday.")
	learn(t, svc, "The standup is at 9:30.")
	res, err := svc.Recall(ctx, memory.RecallParams{Question: "What did grandpa give me?"}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Answer, memory.IDontKnow) {
		t.Errorf("grandpa: answered %q, want I don't know", res.Answer)
	}
	res, err = svc.Recall(ctx, memory.RecallParams{Question: "What did grandmaa give me?"}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Citations) == 0 || !strings.Contains(res.Citations[0].Snippet, "necklace") {
		t.Errorf("grandmaa: answered %q, want the necklace", res.Answer)
	}
}

// recallAnswers asks each question of cases and checks the answer: for
// "" it is "I don't know", citing nothing; else the first citation holds
// the text, and, alone, no other is cited.
func recallAnswers(t *testing.T, svc *memory.Service, alone bool, cases map[string]string) {
	t.Helper()
	for q, want := range cases {
		res, err := svc.Recall(context.Background(), memory.RecallParams{Question: q}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case want == "" && (!strings.HasPrefix(res.Answer, memory.IDontKnow) || len(res.Citations) != 0):
			t.Errorf("%q: answered %q, want I don't know", q, res.Answer)
		case want != "" && (len(res.Citations) == 0 || !strings.Contains(res.Citations[0].Snippet, want)):
			t.Errorf("%q: answered %q, want %q quoted first", q, res.Answer, want)
		case want != "" && alone && len(res.Citations) != 1:
			t.Errorf("%q: answered %q, want %q quoted alone", q, res.Answer, want)
		}
	}
}

// A question asks in a verb's base form what a note tells in its
// irregular past ("meet", "met"): the note is found by it and answers.
func TestAnIrregularFormIsTheWord(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	for _, n := range []string{
		"I met Joana at the conference in Porto.",
		"Porto has the best custard tarts.",
		"We bought a red bike for Mia's birthday.",
		"Mia's birthday is in June.",
	} {
		learn(t, svc, n)
	}
	for q, want := range map[string]string{
		"Who did I meet in Porto?":            "Joana",
		"What did we buy for Mia's birthday?": "red bike",
	} {
		res, err := svc.Fetch(ctx, memory.FetchParams{Query: q}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Text, want) {
			t.Errorf("fetch %q: %+v, want the note saying %q first", q, res.Hits, want)
		}
		recallAnswers(t, svc, false, map[string]string{q: want})
	}
}

// A note learned twice, the second time in other case and without its
// full stop, is quoted once; notes differing by a sign are two.
func TestRecallQuotesANoteLearnedTwiceOnce(t *testing.T) {
	svc := mustOpenService(t)
	learn(t, svc, "My dentist appointment is on December 12 at 3pm.")
	learn(t, svc, "Our dog is a beagle named Biscuit.")
	learn(t, svc, "my dentist appointment is on December 12 at 3pm")
	rec, err := svc.Recall(context.Background(), memory.RecallParams{Question: "When is my dentist appointment?"}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Citations) != 1 || !strings.Contains(rec.Answer, "December 12") && !strings.Contains(rec.Answer, "december 12") {
		t.Errorf("recall = %q with %d citations, want the appointment quoted once", rec.Answer, len(rec.Citations))
	}
	learn(t, svc, "The freezer should be at -18 degrees.")
	learn(t, svc, "The freezer should be at 18 degrees.")
	rec, err = svc.Recall(context.Background(), memory.RecallParams{Question: "What temperature should the freezer be at?"}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Citations) != 2 {
		t.Errorf("recall = %q, want both temperatures: a sign is no punctuation", rec.Answer)
	}
}

// The same words learned on two days are two notes when they tell a
// relative time: two appointments "tomorrow". (Learning the very same text
// again is a replay, one note.)
func TestRecallKeepsTwoTomorrows(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	svc.SetClock(func() time.Time { return time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC) })
	learn(t, svc, "Dentist appointment tomorrow at 3pm.")
	svc.SetClock(func() time.Time { return time.Date(2026, 5, 20, 9, 0, 0, 0, time.UTC) })
	learn(t, svc, "dentist appointment tomorrow at 3pm")
	rec, err := svc.Recall(ctx, memory.RecallParams{Question: "When is my dentist appointment?"}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Citations) != 2 || !strings.Contains(rec.Answer, "2 May") || !strings.Contains(rec.Answer, "21 May") {
		t.Errorf("recall = %q, want both appointments", rec.Answer)
	}
}

// A conversation's turn keeps its date apart from its words: a question
// naming the month it was told in is answered from it, one naming another
// month is not.
func TestATurnHoldsTheMonthItWasToldIn(t *testing.T) {
	svc := mustOpenService(t)
	_, err := svc.IngestConversation(context.Background(), memory.ConversationParams{Turns: []memory.Turn{
		{ThreadID: "s1", Speaker: "Caroline", Text: "I went to a pride parade last Friday, it was amazing!", Timestamp: "2023-08-14T13:00:00Z"},
		{ThreadID: "s1", Speaker: "Melanie", Text: "That sounds wonderful, I took the kids camping.", Timestamp: "2023-08-14T13:01:00Z"},
	}}, cursor)
	if err != nil {
		t.Fatal(err)
	}
	recallAnswers(t, svc, false, map[string]string{
		"When did Caroline go to a pride parade in August?": "pride parade",
		"When did Caroline go to a pride parade in March?":  "",
	})
}

// A query no note holds a word of lists no unrelated note by default, only
// a note near it in meaning ("espresso", a note on coffee); min_score 0
// still lists the nearest.
func TestAQueryNothingHoldsFindsWhatItMeans(t *testing.T) {
	svc := learned(t, "I drive a blue Honda Civic.", "My dog is called Rex.", "I am vegetarian too.", "We use Postgres for billing.",
		"I like oat milk in my coffee.")
	ctx := context.Background()
	fetch := func(q string, min *float64) []memory.Hit {
		res, err := svc.Fetch(ctx, memory.FetchParams{Query: q, MinScore: min}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		return res.Hits
	}
	if hits := fetch("xyzzy plugh", nil); len(hits) != 0 {
		t.Errorf("xyzzy plugh: %d hits, first %q, want none", len(hits), hits[0].Text)
	}
	zero := 0.0
	if hits := fetch("xyzzy plugh", &zero); len(hits) == 0 {
		t.Error("xyzzy plugh with min_score 0: no hits, want the nearest notes")
	}
	if hits := fetch("espresso", nil); len(hits) == 0 || hits[0].Text != "I like oat milk in my coffee." {
		t.Errorf("espresso: %+v, want the note on coffee first", hits)
	}
}

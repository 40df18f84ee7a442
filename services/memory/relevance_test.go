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

// Questions
// in the user's words share only the subject with the note ("take" and
// "city" are nowhere in memory); recall must answer them from it, and
// still know nothing of what no note tells.
func TestRecallInAFewNotes(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	for _, n := range newcomerNotes {
		learn(t, svc, n)
	}
	for q, want := range map[string]string{
		"How do I take my coffee?": "dark roast coffee",
		"Do I take sugar?":         "never with sugar",
		"What city is my home?":    "Lisbon",
		"Which database do I use?": "Postgres 16",
		"Who am I?":                "I am Dana",
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

// A note said to someone ("Thanks, Gina!") is not about them, but it holds
// their name: a search for the name finds it, below the notes that speak of
// them, and browsing by the name lists it.
func TestANameSpokenToIsFound(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	to := learn(t, svc, "Thanks, Gina! The deploy is done.")
	of := learn(t, svc, "Gina owns the billing queue.")
	learn(t, svc, "The standup is at 9:30.")
	for _, mode := range []string{memory.ModeKeyword, memory.ModeHybrid} {
		res, err := svc.Fetch(ctx, memory.FetchParams{Query: "Gina", Mode: mode}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 2 || res.Hits[0].ID != of || res.Hits[1].ID != to {
			t.Errorf("%s: %d hits %+v, want the note of Gina, then the one said to her", mode, len(res.Hits), res.Hits)
		}
	}
	list, err := svc.Browse(ctx, memory.BrowseParams{Query: "Gina"}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Chunks) != 2 {
		t.Errorf("browsing by the name lists %d notes, want 2", len(list.Chunks))
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

// A hyphenated question word finds the note writing it in one: "stand-up"
// is the "Standup" a note holds.
func TestAHyphenatedWordIsTheWordInOne(t *testing.T) {
	svc := learned(t, "Standup is at 9:30 on weekdays.", "I check my email twice a day.", "Our dog is a beagle named Biscuit.")
	recallAnswers(t, svc, false, map[string]string{"What time is stand-up?": "Standup", "How often do I check e-mail?": "email"})
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

// Asked what memory knows of them, the user hears the notes they wrote of
// themselves, not "I don't know", nor a note of what "you" should do.
func TestRecallAboutTheUser(t *testing.T) {
	svc := learned(t,
		"I live in Portland, Oregon.",
		"I use Neovim as my main editor.",
		"My name is Dana Whitfield and I'm a backend engineer.",
		"Our dog is a beagle named Biscuit.",
		"You should always reply to me in British English.",
	)
	for _, q := range []string{"What do you know about me?", "Tell me about myself"} {
		res, err := svc.Recall(context.Background(), memory.RecallParams{Question: q}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Citations) < 3 || strings.Contains(res.Answer, "Biscuit") || strings.Contains(res.Citations[0].Snippet, "British") {
			t.Errorf("%q: answered %q, want the notes written in the first person", q, res.Answer)
		}
	}
}

// A question about "I" is answered by the user's own notes before notes
// about someone they name: "My brother works at Initech" is no answer to
// where I work while "I work at Acme" is in memory.
func TestAQuestionAboutMeQuotesMyNoteFirst(t *testing.T) {
	svc := learned(t,
		"I work at Acme as a designer.",
		"My brother works at Initech.",
		"My sister lives in Berlin.",
		"I live in Lisbon.",
	)
	recallAnswers(t, svc, false, map[string]string{
		"Where do I work?":            "Acme",
		"What company do I work for?": "Acme",
		"Where does my brother work?": "Initech",
		"Where does my sister live?":  "Berlin",
	})
	// An assistant writes of the user as "User".
	svc = learned(t, "User prefers TypeScript over JavaScript.", "I prefer tea in the morning.", "User's manager is Priya.")
	recallAnswers(t, svc, false, map[string]string{"What language do I prefer?": "TypeScript"})
}

// "current" and "still" ask when, not what: in a memory too large for
// light words to pass (retrieval.MinCollection), "What is my current
// address?" is answered by "My address is …" as "What is my address?" is.
func TestACurrentWordAsksWhenNotWhat(t *testing.T) {
	svc := mustOpenService(t)
	for i := range 200 {
		learn(t, svc, fmt.Sprintf("Filler note %d about the quarterly planning of project %d and its budget.", i, i))
	}
	for _, n := range []string{"My address is 12 Elm Street, Springfield.", "My phone number is 555-1234.", "I live in Lisbon."} {
		learn(t, svc, n)
	}
	recallAnswers(t, svc, true, map[string]string{
		"What is my current address?":      "Elm Street",
		"What is my current phone number?": "555-1234",
		"Do I still live in Lisbon?":       "Lisbon",
		"What is my current salary?":       "",
	})
	// In a few notes, where light words pass: a cue among two other words
	// keeps its weight, and "today" is what is asked.
	svc = learned(t, "My blood type is O negative.", "Meeting with Sarah today at 2pm about the budget.", "I live in Leeds.")
	recallAnswers(t, svc, false, map[string]string{
		"What is my current blood pressure?":   "",
		"What is my blood pressure currently?": "",
		"What's on my calendar today?":         "Sarah",
	})
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

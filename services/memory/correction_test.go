package memory_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// A note telling of a change ("Ana left; Raj is my manager now") corrects
// what memory held before, whatever kind it was learned as; asked what
// holds now, memory answers from the change first, though the fact it
// changed holds more of the question's words.
func TestANoteTellingOfAChangeCorrects(t *testing.T) {
	ctx := context.Background()
	svc := learned(t,
		"My manager is Ana.",
		"The team uses MySQL for the billing service.",
		"Deploys go out on Tuesdays.",
		"I prefer dark roast coffee, never with sugar.",
		"Ana left the company; Raj is my manager now.",
		"We migrated billing to Postgres in March.",
		"Correction: deploys now go out after lunch.",
		"Standup is at 9:30 every day.",
		"Correction: we moved standup to the afternoon slot now.",
		"The retro is at 16:00 on Fridays.",
		"We replaced the retro with a written update.",
	)
	for q, want := range map[string]string{
		"Who is my manager?":                   "Raj is my manager now",
		"Which database does billing use now?": "Postgres",
		// The older note holds a time, the kind of answer asked for; the
		// correction still comes first.
		"When do deploys go out now?": "after lunch",
		"What time is standup now?":   "afternoon",
		"What time is the retro now?": "written update",
	} {
		res, err := svc.Fetch(ctx, memory.FetchParams{Query: q}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) < 2 || !strings.Contains(res.Hits[0].Text, want) {
			t.Errorf("fetch %q: first hit %+v, want the note saying %q, then the one it changed", q, res.Hits, want)
		}
		rec, err := svc.Recall(ctx, memory.RecallParams{Question: q}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Citations) < 2 || !strings.Contains(rec.Citations[0].Snippet, want) {
			t.Errorf("recall %q = %q, want it to quote %q first and the older note after", q, rec.Answer, want)
		}
	}
}

// An update said as an upgrade, or a correction asked of by a yes-or-no
// question in the present (which asks what holds now, as "now" does), is
// quoted before the note it corrects. Each memory is one in which the rule
// is what puts the correction first.
func TestAnUpdateAnswersWhatHoldsNow(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		notes, corrections []string
		asked              map[string]string // question → what the first quote says
	}{
		{notes: []string{"We use PostgreSQL 14 for the main database.", "I use Neovim as my main editor.",
			"Our dog is a beagle named Biscuit.", "We upgraded the main database to PostgreSQL 16."},
			asked: map[string]string{"Which PostgreSQL version do we use now?": "PostgreSQL 16"}},
		{notes: []string{"My dentist appointment is on December 12 at 3pm.", "We use Jenkins for CI and deploy on Fridays.",
			"I live in Portland, Oregon.", "Priya works at Acme as a designer.", "I use Vim for editing.",
			"Our dog is a beagle named Biscuit.", "We switched CI from Jenkins to GitHub Actions.",
			"Priya no longer works at Acme; she joined a startup.", "I switched from Vim to VS Code for editing."},
			corrections: []string{"Correction: the dentist appointment moved to December 19 at 10am."},
			asked: map[string]string{"Is my dentist appointment on December 12?": "December 19",
				"Is Priya a designer at Acme?": "no longer"}},
	} {
		svc := mustOpenService(t)
		for _, text := range c.notes {
			learn(t, svc, text)
		}
		for _, text := range c.corrections {
			if _, err := svc.Learn(ctx, memory.LearnParams{Text: text, Kind: "correction"}, cursor); err != nil {
				t.Fatal(err)
			}
		}
		for q, want := range c.asked {
			rec, err := svc.Recall(ctx, memory.RecallParams{Question: q}, anyone)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Citations) < 2 || !strings.Contains(rec.Citations[0].Snippet, want) {
				t.Errorf("recall %q = %q, want %q first and the older note after", q, rec.Answer, want)
			}
		}
	}
}

// A change told in other words than the state it changes is found by the
// state's words: "I moved to Berlin" answers where I live now, before the
// note it changed; a meeting moved to Friday is no move of house, and my
// move is none of Sam's.
func TestAMoveIsWhereILiveNow(t *testing.T) {
	ctx := context.Background()
	svc := learned(t,
		"I live in Paris.",
		"Sam lives in Oslo.",
		"My sister works as a nurse.",
		"We moved the standup to Friday.",
		"I moved to Berlin last month.",
	)
	rec, err := svc.Recall(ctx, memory.RecallParams{Question: "Where do I live now?"}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Citations) < 2 || !strings.Contains(rec.Citations[0].Snippet, "Berlin") || !strings.Contains(rec.Citations[1].Snippet, "Paris") {
		t.Errorf("recall = %q, want the move to Berlin first, then Paris", rec.Answer)
	}
	// Asked in the present without "now", the move still answers first.
	recallAnswers(t, svc, false, map[string]string{"Where am I based?": "Berlin"})
	for _, q := range []string{"Where do I live?", "What city do I live in?"} {
		rec, err = svc.Recall(ctx, memory.RecallParams{Question: q}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Citations) < 2 || !strings.Contains(rec.Citations[0].Snippet, "Berlin") {
			t.Errorf("%q: recall = %q, want the move to Berlin first", q, rec.Answer)
		}
	}
	for _, q := range []string{"Where does Sam live now?", "Where does Sam live?"} {
		rec, err = svc.Recall(ctx, memory.RecallParams{Question: q}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Citations) != 1 || !strings.Contains(rec.Citations[0].Snippet, "Oslo") {
			t.Errorf("%q: recall = %q, want Sam's Oslo alone", q, rec.Answer)
		}
	}
	res, err := svc.Fetch(ctx, memory.FetchParams{Query: "Which city is my home?"}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Text, "Berlin") {
		t.Errorf("fetch: %+v, want the move to Berlin first", res.Hits)
	}
	res, err = svc.Fetch(ctx, memory.FetchParams{Query: "home", Mode: memory.ModeKeyword}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 {
		t.Errorf("keyword mode looks for the word itself, and no note holds it: %+v", res.Hits)
	}
}

// A correction told without a cue word beside "now" ("my salary is now
// $165k"), by a rename, or by starting a job answers before what it
// corrects, in the default kind; so does one holding the state asked of
// in other words ("my editor is now Zed" for "What editor do I use
// now?").
func TestACorrectionInPlainWords(t *testing.T) {
	for _, c := range []struct {
		notes     []string
		questions []string
		want      string
	}{
		{[]string{"My favorite restaurant is Nopa.", "Actually, my favorite restaurant is now Zuni Cafe."},
			[]string{"What's my favorite restaurant now?", "What is my favorite restaurant?"}, "Zuni"},
		{[]string{"My salary is $150k.", "I got a raise; my salary is now $165k.", "My wife earns $120k."},
			[]string{"What's my current salary?", "What is my salary?"}, "$165k"},
		{[]string{"Our puppy is called Max.", "We renamed the puppy to Bear.", "My sister's puppy is called Luna."},
			[]string{"What is the puppy called now?"}, "Bear"},
		{[]string{"I use Neovim as my editor.", "Actually, my editor is now Zed."},
			[]string{"What editor do I use now?"}, "Zed"},
		{[]string{"I work at Google as a software engineer.", "My wife works at Microsoft as a designer.", "I just started a new job at Stripe as a staff engineer."},
			[]string{"Where do I work?", "Where do I work now?"}, "Stripe"},
	} {
		svc := learned(t, c.notes...)
		want := map[string]string{}
		for _, q := range c.questions {
			want[q] = c.want
		}
		recallAnswers(t, svc, false, want)
	}
}

// A move to a street tells my address as well as where I live.
func TestAMoveToAStreetIsMyAddress(t *testing.T) {
	svc := learned(t, "My email address is ana@example.com.", "My home address is 12 Oak Road, Leeds.", "We moved to 44 Elm Street.")
	recallAnswers(t, svc, false, map[string]string{
		"What is my home address?":  "Elm Street",
		"What is my address now?":   "Elm Street",
		"Where do I live?":          "Elm Street",
		"What is my email address?": "ana@example.com",
	})
}

// A new address told without a move ("Our new address is 12 Rua
// Augusta") is where I live, before where I lived; an email address or a
// work address is not where I live, nor a home's address an email.
func TestANewAddressIsWhereILive(t *testing.T) {
	svc := learned(t, "I live in Paris.", "My email address is ana@example.com.", "Our new address is 12 Rua Augusta, Lisbon.")
	recallAnswers(t, svc, false, map[string]string{
		"Where do I live?":          "Rua Augusta",
		"Where do I live now?":      "Rua Augusta",
		"What is my home address?":  "Rua Augusta",
		"What is my email address?": "ana@example.com",
	})
	recallAnswers(t, svc, true, map[string]string{"What is my email address?": "ana@example.com"})
	other := learned(t, "My email address is ana@example.com.", "My work address is 1 Infinite Loop.", "I like hiking.")
	recallAnswers(t, other, false, map[string]string{"Where do I live?": ""})
	mom := learned(t, "My mom's address is 5 Oak Street, Dayton.", "I live in Austin.")
	recallAnswers(t, mom, true, map[string]string{"Where does my mom live?": "Oak Street", "Where do I live?": "Austin"})
}

// Another word for a relation is the word: "My new boss is Tom" is news
// of "My manager is Priya".
func TestANewBossIsMyManager(t *testing.T) {
	svc := learned(t, "My manager at Acme is Priya Shah.", "My new boss is Tom Alvarez.", "I work from home on Fridays.")
	recallAnswers(t, svc, false, map[string]string{
		"Who is my manager?":     "Tom Alvarez",
		"Who is my manager now?": "Tom Alvarez",
		"Who is my boss?":        "Tom Alvarez",
	})
}

// A change of job told by the companies' names alone ("I left Acme and
// joined Lumen") answers where I work before the job it ended, asked in
// the word of its kind too ("employer").
func TestLeavingForAnotherCompanyIsAChangeOfJob(t *testing.T) {
	for _, change := range []string{"I left Acme and joined Lumen.", "I joined Lumen as a product designer.",
		"I switched jobs in January: I'm now a product manager at Lumen.", "I got a new job at Lumen."} {
		svc := learned(t, "I work at Acme.", "Acme has an office in Leeds.", change)
		recallAnswers(t, svc, false, map[string]string{
			"Where do I work now?":    "Lumen",
			"Where do I work?":        "Lumen",
			"Who is my employer now?": "Lumen",
		})
	}
}

// A question in the present without a cue ("What is …?") takes a change
// told of the state it asks about for its answer (TestAMoveIsWhereILiveNow),
// not any correction sharing its words: the public API's new limit is no
// answer about the internal one's.
func TestAPresentQuestionTakesNoOtherCorrection(t *testing.T) {
	svc := learned(t,
		"The internal API rate limit is 100 requests per second.",
		"The search API rate limit is 20 requests per second.",
		"Correction: the public API rate limit is now 1,000 requests per minute per API key.",
	)
	recallAnswers(t, svc, false, map[string]string{
		"What is the internal API rate limit?": "internal",
		"What is the search API rate limit?":   "search",
		"What is the public API rate limit?":   "public",
	})
}

// What tells of no change of the writer's home, tools or work is no
// correction of them: moving files, a meeting or a shift, switching off
// the TV, geese migrating, leaving the company car, someone else's move
// or job; nor is a manager "now on vacation", nor a commute "longer than
// usual".
func TestWhatTellsOfNoChangeCorrectsNothing(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		notes          []string
		question, want string
	}{
		{[]string{"I live in Paris.", "I moved the files to Dropbox."}, "Where do I live now?", "Paris"},
		{[]string{"I keep my passport in the blue folder in the study.", "Actually, the blue folder also holds the car insurance papers."}, "Is my passport in the study?", "passport"},
		{[]string{"Gym class is on Friday mornings at 7.", "The dentist appointment was rescheduled to Friday."}, "Is gym class on Friday mornings?", "Gym"},
		{[]string{"I read mostly science fiction.", "My new year's resolution is to read more books."}, "What do I read?", "science fiction"},
		{[]string{"I take the train to the office on Tuesdays.", "Priya no longer works at the office; she's remote."}, "Do I take the train to work?", "train"},
		{[]string{"Sam is vegetarian and cooks on weekends.", "We moved the call with Sam's parents to weekends."}, "Is Sam vegetarian?", "vegetarian"},
		{[]string{"I live in Paris.", "We moved the meeting to the 14th."}, "Where do I live now?", "Paris"},
		{[]string{"I live in Paris.", "Since I moved to the night shift I sleep badly."}, "Where do I live now?", "Paris"},
		{[]string{"I use Vim for editing.", "I switched off the TV."}, "Which editor do I use now?", "Vim"},
		{[]string{"We use Jenkins for CI.", "The geese migrated south early this year."}, "What do we use for CI now?", "Jenkins"},
		{[]string{"I work at Acme.", "I left the company car at the garage."}, "Where do I work now?", "Acme"},
		{[]string{"I live in Paris.", "My sister moved to Berlin last month."}, "Where do I live now?", "Paris"},
		{[]string{"I work at Acme.", "Sam quit his job at the bank."}, "Where do I work now?", "Acme"},
		{[]string{"Sam lives in Oslo.", "Ana moved to Rome."}, "Where does Sam live now?", "Oslo"},
		{[]string{"Sam lives in Oslo.", "Sam likes jazz.", "Sam has a dog.", "I moved to Berlin last month."}, "Where does Sam live now?", "Oslo"},
		{[]string{"My manager is Ana.", "My manager is now on vacation until June."}, "Who is my manager now?", "Ana"},
		{[]string{"My commute is 20 minutes.", "My commute felt longer than usual because of rain."}, "How long is my commute now?", "20 minutes"},
		{[]string{"I live in Paris.", "I moved to Berlin in 2023.", "Deploys go out on Tuesdays.", "I moved to Madrid in 2025."}, "Where do I live now?", "Madrid"},
		// Asked in the present without "now": my move is no news of my
		// brother's home, nor a move to a tool of my address, nor a
		// switch of anything of what I use.
		{[]string{"My brother lives in Chicago.", "I moved to Austin last year."}, "Where does my brother live?", "Chicago"},
		{[]string{"My parents live in Ohio.", "I moved to Seattle in 2020."}, "Where do my parents live?", "Ohio"},
		{[]string{"My home address is 12 Oak Street, Springfield.", "I moved to Linear from Jira for issue tracking."}, "What is my home address?", "Oak Street"},
		{[]string{"We use Postgres for the main database.", "We switched from Jenkins to GitHub Actions for CI."}, "What database do we use?", "Postgres"},
		{[]string{"I use Chase for my checking account.", "I switched to a standing desk in January."}, "Which bank do I use?", "Chase"},
		{[]string{"To use the VPN, open Tunnelblick and pick office.ovpn.", "I switched to a new dentist in April."}, "How do I use the VPN?", "Tunnelblick"},
		// Nor is a move to a tool or a team a move of home.
		{[]string{"I live in Portland.", "I moved to Neovim from VS Code."}, "Where do I live?", "Portland"},
		{[]string{"I live in Portland.", "We moved to Slack last year."}, "Where do I live now?", "Portland"},
		{[]string{"I live in Portland.", "I moved to Marketing in March."}, "Where do I live?", "Portland"},
		// An earlier life is no change of now.
		{[]string{"I live in Denver, Colorado.", "When I was ten, we moved to Texas from Mexico."}, "Where do I live?", "Denver"},
		{[]string{"I live in Denver, Colorado.", "When I was ten, we moved to Texas from Mexico."}, "Where do I live now?", "Denver"},
		{[]string{"I work at Globex as a data engineer.", "In college I quit my job at Starbucks to focus on studying."}, "Where do I work?", "Globex"},
		{[]string{"My mom lives in Tucson.", "I live in Denver with my wife Maria.", "When I was a kid we moved to Texas."}, "Where do my parents live?", "Tucson"},
	} {
		svc := learned(t, c.notes...)
		rec, err := svc.Recall(ctx, memory.RecallParams{Question: c.question}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Citations) == 0 || !strings.Contains(rec.Citations[0].Snippet, c.want) {
			t.Errorf("%v, %q: recall = %q, want %q first", c.notes, c.question, rec.Answer, c.want)
		}
	}
}

// "My new manager is Rachel" tells of a change, and is quoted before the
// manager it replaces; "My new year's resolution" tells of none.
func TestMyNewOneIsAChange(t *testing.T) {
	svc := learned(t,
		"My manager is Tom Baker.",
		"I work at Acme.",
		"I read mostly science fiction.",
		"My new manager is Rachel Kim; Tom left the company.",
		"My new year's resolution is to read more books.",
	)
	recallAnswers(t, svc, false, map[string]string{
		"Who is my manager?":     "Rachel",
		"Who is my manager now?": "Rachel",
		"What do I read?":        "science fiction",
	})
}

// A change ranked above the note it changes already still answers for it:
// "I moved to Austin" holds no place word "where" asks for, but it
// answers where I live as the note it changed would.
func TestAChangeAboveWhatItChangesAnswersForIt(t *testing.T) {
	svc := learned(t, "My brother lives in Chicago.", "I moved to Austin last year.")
	recallAnswers(t, svc, false, map[string]string{"Where do I live?": "Austin"})
}

// Asked whether a state of the user still holds, by the value it held
// ("Do I still live in Berlin?", "Do I still drive the Civic?"), recall
// quotes the user's change of that state or thing first, though it names
// another value; a change of another state, or of someone else's, is no
// news of it.
func TestStillAskedByTheOldValue(t *testing.T) {
	svc := learned(t, "I live in Berlin.", "I moved to Paris last month.", "I work at Acme as an engineer.",
		"Tom lives in Rome.", "I like dark roast coffee.")
	recallAnswers(t, svc, false, map[string]string{
		"Do I still live in Berlin?":   "Paris",
		"Do I live in Berlin?":         "Paris",
		"Does Tom still live in Rome?": "Rome",
		"Do I still work at Acme?":     "Acme",
	})
	// Quoted after the move, the older note says it was changed.
	if res, err := svc.Recall(context.Background(), memory.RecallParams{Question: "Do I still live in Berlin?"}, anyone); err != nil ||
		!strings.Contains(res.Answer, "I live in Berlin. [2] (older: [1] changed it)") {
		t.Errorf("the older note is quoted without saying it was changed: %+v, %v", res, err)
	}
	// A correction holds "still" as every correction does: that is no
	// word it shares with another correction, which it then corrects.
	meds := learned(t, "I take metformin 500mg twice a day.", "Dr. Alvarez took me off metformin, I'm on Jardiance now.",
		"I stopped the PT, knee is fine now.")
	recallAnswers(t, meds, false, map[string]string{"Do I still take metformin?": "Jardiance"})
	// What "we" did is the user's own change too.
	household := learned(t, "I live in Porto.", "We relocated to Lisbon last month.", "I like tea.")
	recallAnswers(t, household, false, map[string]string{"Do I still live in Porto?": "Lisbon", "Do I live in Porto?": "Lisbon"})
	car := learned(t, "I drive a Honda Civic.", "I sold my Civic and bought a Tesla Model 3.", "My cat is called Mochi.")
	recallAnswers(t, car, false, map[string]string{"Do I still drive the Civic?": "Tesla"})
	// A day is a value a change replaces too.
	yoga := learned(t, "I go to yoga every Tuesday at 7pm.", "Yoga moved to Wednesdays starting next month.",
		"The team standup is on Monday at 10.")
	recallAnswers(t, yoga, false, map[string]string{"Do I still do yoga on Tuesday?": "Wednesdays"})
	recallAnswers(t, yoga, true, map[string]string{"Is the standup still on Monday?": "standup"})
	// So is the day of a month, said with it.
	haircut := learned(t, "My haircut is on June 5.", "My haircut moved to June 9.", "The team standup is on Monday at 10.")
	recallAnswers(t, haircut, false, map[string]string{"Is my haircut on June 5?": "June 9", "Is my haircut on 5 June?": "June 9"})
}

// A correction holds the words asking what holds now ("current",
// "currently"): it tells just that. A note that is no correction does not:
// my blood type says nothing of my current blood pressure.
func TestACorrectionHoldsWhatIsCurrent(t *testing.T) {
	svc := learned(t, "My dentist is Dr. Weber.", "Correction: my dentist is now Dr. Lee.", "I like tea.",
		"I live in Berlin.", "I moved to Paris last month.", "My blood type is O negative.")
	recallAnswers(t, svc, false, map[string]string{
		"What's the name of my current dentist?": "Dr. Lee",
		"Which city am I currently based in?":    "Paris",
		"What is my blood pressure currently?":   "",
	})
}

// A later note of the user's parting with a thing by its name is news of
// their older notes holding that name, asked what holds now in words
// neither shares: the sold car is not the car I drive, the manager at the
// company I left is not my manager first. Asked of the past, or of the
// name itself, the older note answers as before; another's sale is not
// mine.
func TestPartingWithANameIsNewsOfIt(t *testing.T) {
	car := learned(t, "I drive a 2012 Honda Civic.", "I sold my Civic and bought a Tesla Model 3.", "My cat is called Mochi.",
		"My brother drives a Subaru.")
	recallAnswers(t, car, false, map[string]string{
		"What car do I drive?":            "Tesla",
		"What car did I drive?":           "Civic",
		"What car does my brother drive?": "Subaru",
	})
	work := learned(t, "My manager at Acme is Priya Shah.", "I work at Acme as a product designer.",
		"I left Acme and joined Lumen in March.", "My manager at Lumen is Tomas Berg.", "I like oat milk in my coffee.")
	recallAnswers(t, work, false, map[string]string{
		"Who is my manager?":         "Tomas",
		"Who is my manager at Acme?": "Priya",
		"Where do I work?":           "Lumen",
	})
	love := learned(t, "My girlfriend is Sophie, she's a graphic designer.", "My best friend Marco just got engaged to Lena.",
		"Sophie and I broke up.")
	recallAnswers(t, love, false, map[string]string{"Who is my girlfriend?": "broke up"})
	// Ending a membership or a subscription parts with what it was of.
	gym := learned(t, "My gym membership at Crunch costs $29 a month.", "I like hiking on weekends.",
		"I canceled the Crunch membership and now just run outside.")
	recallAnswers(t, gym, false, map[string]string{
		"Do I have a gym membership?":          "canceled",
		"How much is my gym membership?":       "canceled",
		"How much did my gym membership cost?": "$29",
	})
	other := learned(t, "I drive a Honda Civic.", "My sister sold her Civic last year.", "I like tea.")
	recallAnswers(t, other, false, map[string]string{"What car do I drive?": "I drive a Honda Civic"})

	// Told in a workspace the caller cannot see, the sale is no news to them.
	ctx := context.Background()
	scoped := mustOpenService(t)
	for _, n := range []struct{ ws, text string }{{"home", "I drive a Honda Civic."}, {"private", "I sold my Civic and bought a Tesla."}} {
		if _, err := scoped.Learn(ctx, memory.LearnParams{Text: n.text, Workspace: n.ws}, limitedTo(n.ws)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		cc   contract.CallContext
		want string
	}{{limitedTo("home"), "Civic"}, {contract.CallContext{Source: "cli", Workspaces: []string{"home", "private"}}, "Tesla"}} {
		res, err := scoped.Recall(ctx, memory.RecallParams{Question: "What car do I drive?"}, c.cc)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Citations) == 0 || !strings.Contains(res.Citations[0].Snippet, c.want) || c.want == "Civic" && len(res.Citations) != 1 {
			t.Errorf("caller of %v: answered %q, want %q first", c.cc.Workspaces, res.Answer, c.want)
		}
	}
}

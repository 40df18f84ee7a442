package console_test

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/openhuman-go/openhuman-go/services/gateway/console/browsertest"
)

const (
	ownerToken   = "oh_console-owner-0123456789abcdef0123"
	limitedToken = "oh_console-limited-0123456789abcdef01"
	readerToken  = "oh_console-reader-0123456789abcdef012"
)

// TestMemoryInTheBrowser: sign in with a token, search, open an item
// (which says why the search found it, with the score the results
// showed), forget it (then memory.fetch over /rpc no longer finds it), learn a
// note through the form (then it is stored, written by the console).
func TestMemoryInTheBrowser(t *testing.T) {
	browsertest.Require(t)
	home := t.TempDir()
	writeTokens(t, home, token{name: "owner", secret: ownerToken, scopes: []string{"read", "act"}})
	srv := browsertest.ServeIn(t, home)
	coffee := learn(t, srv.URL, ownerToken, "Maya drinks her coffee black, no sugar; ask maya@example.com before ordering.", nil)
	learn(t, srv.URL, ownerToken, "The standup moves to 9:30 on Mondays.", nil)

	p := newPerson(t, srv.URL)
	p.signIn(ownerToken)
	p.sees("The standup moves to 9:30 on Mondays.")

	p.do("searching", chromedp.SendKeys("#q", "coffee"), chromedp.Submit("#q"))
	p.sees(`Best matches for “coffee”`)
	listed, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#results li")].
		find(li => li.querySelector('a[href*="`+coffee+`"]')).querySelector(".meta").textContent.match(/score ([0-9.]+)/)[1]`))
	if err != nil {
		t.Fatalf("the coffee note's score in the results: %v", err)
	}
	p.do("opening the item", chromedp.Click(`#results a[href*="`+coffee+`"]`))
	p.sees("Maya drinks her coffee black")
	p.sees("http:owner")               // written by, as the API stored it
	p.sees("maya@example.com (email)") // an entity it mentions
	p.sees("Observed")
	p.sees("Why this hit")
	checkWhy(t, p, listed)
	p.do("going back to the results", chromedp.Click(`#why a[href^="/console/memory?"]`))
	p.sees(`Best matches for “coffee”`)
	p.open("/console/memory/item?id=" + coffee)
	p.sees("About this item")
	if strings.Contains(p.bodyText(), "Why this hit") {
		t.Error("an item opened from no search says why a search found it")
	}
	narrowAt(t, p, "/console/memory/item?id="+coffee+"&q=coffee", "#why")

	p.do("asking to forget", chromedp.Click(`a[href*="/console/memory/forget"]`))
	p.sees("Forget this item?")
	p.do("confirming", chromedp.Click(`form[action="/console/memory/forget"] button`))
	p.sees("Forgotten")
	p.sees("memory answers that no such item exists")
	if ids := fetchIDs(t, srv.URL, ownerToken, "coffee black sugar"); slices.Contains(ids, coffee) {
		t.Fatalf("memory.fetch still finds the forgotten item: %v", ids)
	}

	p.open("/console/memory/learn")
	p.do("learning a note", chromedp.SendKeys("#text", "The office plants are watered on Fridays."), chromedp.Submit("#text"))
	p.sees("Learned. This is the item memory keeps.")
	p.sees("console:owner")
	hits := rpc(t, srv.URL, ownerToken, "openhuman.memory_fetch", map[string]any{"query": "plants watered Fridays"})["hits"].([]any)
	if len(hits) == 0 || !strings.Contains(hits[0].(map[string]any)["text"].(string), "office plants") {
		t.Fatalf("the learned note is not in memory: %v", hits)
	}
	if prov := hits[0].(map[string]any)["meta"].(map[string]any)["provenance"]; prov != "console:owner" {
		t.Errorf("the note's provenance is %v, want console:owner", prov)
	}
}

// TestForgetASourceAndReadTheAudit: the sources page lists each source
// with its items; forgetting one source forgets all of its items and no
// other, and the audit, filtered by client, shows who forgot what.
func TestForgetASourceAndReadTheAudit(t *testing.T) {
	browsertest.Require(t)
	home := t.TempDir()
	writeTokens(t, home, token{name: "owner", secret: ownerToken, scopes: []string{"read", "act"}})
	srv := browsertest.ServeIn(t, home)
	for _, text := range []string{"Alpha zqsourceword.", "Beta zqsourceword.", "Gamma zqsourceword."} {
		learn(t, srv.URL, ownerToken, text, nil)
	}
	cursor := mcpSession(t, srv.URL, ownerToken, "Cursor")
	if _, failed, err := cursor.tool("memory.learn", map[string]any{"text": "Delta stays."}); err != nil || failed != "" {
		t.Fatalf("learn over MCP: %v %s", err, failed)
	}

	p := newPerson(t, srv.URL)
	p.signIn(ownerToken)
	p.open("/console/sources")
	row, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("tbody tr")].map(r => r.innerText).find(t => t.startsWith("http:owner")) || ""`))
	if err != nil || !strings.Contains(row, "3") {
		t.Fatalf("the http:owner row: %q %v", row, err)
	}
	p.do("opening the source", chromedp.Click(`a[href="/console/sources/items?source=http%3aowner"]`))
	p.sees("3 items, newest first.")
	p.sees("Gamma zqsourceword.")
	p.do("asking to forget it", chromedp.Click(`a[href^="/console/sources/forget"]`))
	p.sees("Forget the source http:owner?")
	p.do("confirming", chromedp.Click(`form[action="/console/sources/forget"] button`))
	p.sees("3 items of http:owner were forgotten. Memory holds none of its items any more.")
	if texts := allTexts(t, srv.URL, ownerToken); len(texts) != 1 || texts[0] != "Delta stays." {
		t.Fatalf("memory after forgetting the source: %q", texts)
	}

	p.open("/console/audit")
	p.sees("console:owner") // the forget, page by page
	p.do("filtering by client", chromedp.SendKeys("#client", "mcp:cursor"), chromedp.Submit("#client"))
	deadline := time.Now().Add(10 * time.Second)
	for {
		rows, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#audit-rows tbody tr")].map(r => r.innerText)`))
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 1 && strings.Contains(rows[0], "mcp:cursor") && strings.Contains(rows[0], "memory.learn") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the audit filtered by mcp:cursor: %q", rows)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if loc := p.location(); !strings.Contains(loc, "client=mcp%3Acursor") {
		t.Errorf("the filter is not in the address, to share or reload: %s", loc)
	}
}

// TestOpenConsoleWithoutTokens: on a loopback server with no token the
// console is open, as the API is, and its forms still carry a CSRF token
// of the session it starts.
func TestOpenConsoleWithoutTokens(t *testing.T) {
	browsertest.Require(t)
	srv := browsertest.Serve(t)
	p := newPerson(t, srv.URL)
	p.open("/console/")
	p.sees("Newest first")
	p.sees("This server has no tokens: the console is open to this machine.")
	p.open("/console/memory/learn")
	p.do("learning a note", chromedp.SendKeys("#text", "Open consoles learn too."), chromedp.Submit("#text"))
	p.sees("Learned. This is the item memory keeps.")
	p.sees("console")
	if texts := allTexts(t, srv.URL, ""); len(texts) != 1 || texts[0] != "Open consoles learn too." {
		t.Fatalf("memory: %q", texts)
	}
	p.open("/console/signin")
	p.sees("Newest first") // nothing to sign in to
}

// whyTable is an item page's "Why this hit" as a person reads it.
type whyTable struct {
	Profile string     `json:"profile"`
	Rows    [][]string `json:"rows"`
	Score   string     `json:"score"`
}

// checkWhy reads the item page's "Why this hit" and holds it to what it
// claims: a rank profile, at least one feature, each named, of a phase,
// with numbers whose product is the last column, and the score the
// results showed (listed, to three places). Features are the rank
// profile's to name, so none is named here.
func checkWhy(t *testing.T, p *person, listed string) {
	t.Helper()
	w, err := chromedp.Run(p.ctx, chromedp.Evaluate[*whyTable](`(() => {
		const s = document.querySelector("#why");
		return s && {profile: s.querySelector("p code").textContent,
			rows: [...s.querySelectorAll("tbody tr")].map(r => [...r.cells].map(c => c.textContent.trim())),
			score: s.querySelector("tfoot td").textContent.trim()};
	})()`))
	if err != nil || w == nil {
		t.Fatalf("reading why the search found the item: %v\n%s", err, p.bodyText())
	}
	if w.Profile == "" || len(w.Rows) == 0 {
		t.Fatalf("why this hit: profile %q and %d features", w.Profile, len(w.Rows))
	}
	num := func(s string) float64 {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			t.Errorf("why this hit shows %q for a number", s)
		}
		return f
	}
	for _, row := range w.Rows {
		if len(row) != 5 || row[0] == "" || row[1] == "" {
			t.Errorf("a feature's row: %q", row)
			continue
		}
		v, wt, prod := num(row[2]), num(row[3]), num(row[4])
		if math.Abs(prod-v*wt) > 1e-4*(1+math.Abs(v)+math.Abs(wt)) {
			t.Errorf("feature %s: %v × %v shown as %v", row[0], v, wt, prod)
		}
	}
	if got, want := num(w.Score), num(listed); math.Abs(got-want) > 6e-4 {
		t.Errorf("why this hit says the score is %s; the results said %s", w.Score, listed)
	}
}

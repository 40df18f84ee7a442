package console_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/openhuman-go/openhuman-go/services/gateway/console/browsertest"
)

const (
	ownerToken   = "oh_console-owner-0123456789abcdef0123"
	limitedToken = "oh_console-limited-0123456789abcdef01"
)

// TestMemoryInTheBrowser: sign in with a token, search, open an item,
// forget it (then memory.fetch over /rpc no longer finds it), learn a
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
	p.do("opening the item", chromedp.Click(`#results a[href*="`+coffee+`"]`))
	p.sees("Maya drinks her coffee black")
	p.sees("http:owner")               // written by, as the API stored it
	p.sees("maya@example.com (email)") // an entity it mentions
	p.sees("Observed")

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

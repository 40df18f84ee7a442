package console_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/openhuman-go/openhuman-go/services/gateway/console/browsertest"
)

// TestCorrectALearning: a learning's page corrects it in place; the new
// text is what memory answers with, the old one stays, marked superseded
// and linked to its correction; the memory page shows the learnings of
// one kind.
func TestCorrectALearning(t *testing.T) {
	browsertest.Require(t)
	home := t.TempDir()
	writeTokens(t, home, token{name: "owner", secret: ownerToken, scopes: []string{"read", "act"}})
	srv := browsertest.ServeIn(t, home)
	old := learn(t, srv.URL, ownerToken, "I live in Porto.", map[string]any{"kind": "fact"})
	learn(t, srv.URL, ownerToken, "I take my coffee black.", map[string]any{"kind": "preference"})

	p := newPerson(t, srv.URL)
	p.signIn(ownerToken)
	p.open("/console/memory/item?id=" + old)
	p.sees("Correct this learning")
	p.do("correcting", chromedp.SetValue("#text", "I live in Lisbon now."), chromedp.Click(`form[action="/console/memory/correct"] button`))
	p.sees("Corrected. Memory keeps the old learning too")
	p.sees("I live in Lisbon now.")
	p.sees("(fact)")

	p.open("/console/memory/item?id=" + old)
	p.sees("Superseded: a later learning corrects this one.")
	browsertest.Shot(t, p.ctx, "item-superseded")
	if strings.Contains(p.bodyText(), "Correct this learning") {
		t.Error("a superseded learning offers to be corrected again")
	}
	if ids := fetchIDs(t, srv.URL, ownerToken, "where do I live"); len(ids) == 0 || ids[0] == old {
		t.Errorf("fetch after the correction: %v (the old one is %s)", ids, old)
	}

	p.open("/console/memory?learning_kind=preference")
	p.sees("I take my coffee black.")
	if text := p.bodyText(); strings.Contains(text, "Lisbon") || strings.Contains(text, "Porto") {
		t.Errorf("the preferences list facts:\n%s", text)
	}
	browsertest.Axe(t, p.ctx, "memory-preferences")
	browsertest.Shot(t, p.ctx, "memory-preferences")
}

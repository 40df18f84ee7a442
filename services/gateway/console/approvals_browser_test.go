package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/openhuman-go/openhuman-go/services/gateway/console/browsertest"
)

// TestApproveAndDenyInTheBrowser: sub-agents started over MCP wait for
// approval of their writes (the scripted model makes them learn). The
// approvals page, open before they ask, shows each without a reload; one
// is approved and one denied with a note, each run goes on accordingly,
// and the decided list says who decided.
func TestApproveAndDenyInTheBrowser(t *testing.T) {
	browsertest.Require(t)
	model := noteTaker(t)
	home := t.TempDir()
	writeTokens(t, home, token{name: "owner", secret: ownerToken, scopes: []string{"read", "act"}})
	srv := browsertest.ServeIn(t, home, "OPENHUMAN_LLM_BASE_URL="+model.URL, "OPENHUMAN_LLM_MODEL=toy", "OPENHUMAN_APPROVAL_MODE=ask")
	p := newPerson(t, srv.URL)
	p.signIn(ownerToken)
	p.open("/console/approvals")
	p.sees("Nothing waits for a decision.")
	loadedAt, err := chromedp.Run(p.ctx, chromedp.Evaluate[float64](`performance.timeOrigin`))
	if err != nil {
		t.Fatal(err)
	}

	cursor := mcpSession(t, srv.URL, ownerToken, "Cursor")
	keep := cursor.runAgent("note_taker", "Note: the zqapproveword printer is on floor 2.")
	p.sees("zqapproveword printer") // appeared without a reload
	p.sees("note_taker wants to call memory.learn")
	p.sees("Asked by mcp:cursor/agent:note_taker with token owner")
	p.do("approving", chromedp.Click(`article.approval button[value="approve"]`))
	select {
	case res := <-keep:
		if !strings.HasPrefix(res, "Done: ") {
			t.Fatalf("the approved run: %s", res)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the approved run did not end")
	}
	if texts := allTexts(t, srv.URL, ownerToken); len(texts) != 1 || !strings.Contains(texts[0], "zqapproveword") {
		t.Fatalf("memory after the approval: %q", texts)
	}

	drop := cursor.runAgent("note_taker", "Note: the zqdenyword meeting is cancelled.")
	p.sees("zqdenyword meeting")
	p.do("denying with a note", chromedp.SendKeys(`article.approval input[name="note"]`, "not worth keeping"),
		chromedp.Click(`article.approval button[value="deny"]`))
	select {
	case res := <-drop:
		if !strings.Contains(res, "denied by the approver: not worth keeping") {
			t.Fatalf("the denied run: %s", res)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the denied run did not end")
	}
	if texts := allTexts(t, srv.URL, ownerToken); len(texts) != 1 {
		t.Fatalf("the denied write was stored: %q", texts)
	}
	p.sees("Nothing waits for a decision.")
	// Both decisions are listed, by the console's token, newest first.
	rows, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#decided ~ table tbody tr")].map(r => r.innerText)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || !strings.Contains(rows[0], "denied") || !strings.Contains(rows[0], "console:owner (token owner)") || !strings.Contains(rows[0], "not worth keeping") ||
		!strings.Contains(rows[1], "approved") || !strings.Contains(rows[1], "console:owner") {
		t.Fatalf("decided rows %q", rows)
	}
	// All of it happened on the page first loaded: htmx swapped the list.
	if same, _ := chromedp.Run(p.ctx, chromedp.Evaluate[float64](`performance.timeOrigin`)); same != loadedAt {
		t.Error("the approvals page was reloaded; it should update in place")
	}
	// And the audit has both decisions.
	p.open("/console/audit?tool=approval.decide")
	p.sees(`"approve": false`)
	p.sees(`"approve": true`)
	p.open("/console/approvals")
	if again, _ := chromedp.Run(p.ctx, chromedp.Evaluate[float64](`performance.timeOrigin`)); again == loadedAt {
		t.Fatal("the page's load time did not change on a real reload: the check above proves nothing")
	}
}

package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/openhuman-go/openhuman-go/services/gateway/console/browsertest"
)

// TestToolsPageShowsTheEmbeddingBacklog: with the embedding server
// unreachable, the tools page says how many items wait for a vector of
// which model, that the embedder fails and why, and when it is tried
// again, updating itself as the worker fails.
func TestToolsPageShowsTheEmbeddingBacklog(t *testing.T) {
	browsertest.Require(t)
	home := t.TempDir()
	writeTokens(t, home, token{name: "owner", secret: ownerToken, scopes: []string{"read", "act"}})
	srv := browsertest.ServeIn(t, home, "OPENHUMAN_EMBEDDINGS_PROVIDER=ollama", "OPENHUMAN_EMBEDDINGS_BASE_URL=http://127.0.0.1:1",
		"OPENHUMAN_EMBEDDINGS_MODEL=absent")
	for _, text := range []string{"One.", "Two.", "Three."} {
		learn(t, srv.URL, ownerToken, text, nil)
	}
	p := newPerson(t, srv.URL)
	p.signIn(ownerToken)
	p.open("/console/tools")
	p.sees("Memory embeddings")
	p.sees("3 items wait for a vector of ollama:absent")
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(p.bodyText(), "failing: ") {
		if time.Now().After(deadline) {
			t.Fatalf("the embedder's failure never showed on the page: %s", p.bodyText())
		}
		time.Sleep(200 * time.Millisecond)
	}
	body := strings.Join(strings.Fields(p.bodyText()), " ")
	for _, want := range []string{"Items waiting for a vector 3", "Model ollama:absent", "127.0.0.1:1", "attempts in a row, the next 20"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q: %s", want, body)
		}
	}
	if err := chromedp.Do(p.ctx, chromedp.ScrollIntoView(`#embedding-h`)); err != nil {
		t.Fatal(err)
	}
	browsertest.Shot(t, p.ctx, "tools-embedding-backlog")
}

package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/openhuman-go/openhuman-go/services/gateway/console/browsertest"
)

// TestToolsPage: the tools page counts each tool's calls of the last hour
// and their error rate from the process's metrics, and when the SearXNG
// stand-in stops answering, its provider turns unhealthy on the page,
// which updates itself.
func TestToolsPage(t *testing.T) {
	browsertest.Require(t)
	sx := startSearxng(t)
	home := t.TempDir()
	writeTokens(t, home, token{name: "owner", secret: ownerToken, scopes: []string{"read", "act"}})
	srv := browsertest.ServeIn(t, home, "OPENHUMAN_SEARXNG_ENABLED=true", "OPENHUMAN_SEARXNG_BASE_URL="+sx.URL)
	for _, text := range []string{"One.", "Two.", "Three."} {
		learn(t, srv.URL, ownerToken, text, nil)
	}
	rpc(t, srv.URL, ownerToken, "openhuman.tools_web_search", map[string]any{"query": "htmx"})

	p := newPerson(t, srv.URL)
	p.signIn(ownerToken)
	p.open("/console/tools")
	row := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`(document.querySelector(`+"`"+sel+"`"+`) || {innerText: ""}).innerText`))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(s), " ")
	}
	if got := row(`tr[data-tool="memory.learn"]`); !strings.HasPrefix(got, "memory.learn (acts) available 3 0.0%") {
		t.Errorf("memory.learn's row: %q", got)
	}
	if got := row(`tr[data-tool="web_search"]`); !strings.HasPrefix(got, "web_search available 1 0.0%") {
		t.Errorf("web_search's row: %q", got)
	}
	if got := row(`tr[data-provider="searxng"]`); !strings.Contains(got, "closed (answered)") {
		t.Fatalf("searxng before failing: %q", got)
	}
	chart, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.querySelector('tr[data-tool="memory.learn"] svg').getAttribute("aria-label")`))
	if err != nil || !strings.HasPrefix(chart, "memory.learn: 3 calls in the last") {
		t.Errorf("memory.learn's chart: %q %v", chart, err)
	}

	sx.stop()
	for range 3 {
		if _, err := rpcCall(srv.URL, ownerToken, "openhuman.tools_web_search", map[string]any{"query": "htmx again"}); err == nil {
			t.Fatal("a search of a stopped SearXNG succeeded")
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := row(`tr[data-provider="searxng"]`)
		if strings.Contains(got, "(failed)") || strings.Contains(got, "open") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("searxng never turned unhealthy on the page: %q", got)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Four calls, three failed: the error rate, and the tool's health
	// naming the provider.
	if got := row(`tr[data-tool="web_search"]`); strings.Contains(got, "web_search available") || !strings.Contains(got, "searxng") || !strings.Contains(got, " 4 75.0%") {
		t.Errorf("web_search after SearXNG failed: %q", got)
	}
	p.sees("circuit open after 3 failures in a row")
}

package console_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/chromedp/chromedp"

	"github.com/openhuman-go/openhuman-go/services/gateway/console/browsertest"
)

// TestEveryPage visits every page of the console, with memory, sources,
// a waiting and a decided approval, a search provider and an audit trail
// to show. axe-core, run inside Chromium on each, must find no serious or
// critical violation; with OPENHUMAN_CONSOLE_SHOTS set (make
// console-shots) each page is written there as a 1280×800 screenshot.
func TestEveryPage(t *testing.T) {
	browsertest.Require(t)
	sx := startSearxng(t)
	model := noteTaker(t)
	home := t.TempDir()
	writeTokens(t, home, token{name: "owner", secret: ownerToken, scopes: []string{"read", "act"}})
	srv := browsertest.ServeIn(t, home, "OPENHUMAN_LLM_BASE_URL="+model.URL, "OPENHUMAN_LLM_MODEL=toy", "OPENHUMAN_APPROVAL_MODE=ask",
		"OPENHUMAN_SEARXNG_ENABLED=true", "OPENHUMAN_SEARXNG_BASE_URL="+sx.URL)
	notes := []struct {
		text string
		ws   string
	}{
		{"Maya drinks her coffee black, no sugar; ask maya@example.com before ordering.", "home"},
		{"The standup moves to 9:30 on Mondays, in the Lisbon room.", "work"},
		{"Deploys freeze from 20 December to 3 January; hotfixes need two approvals.", "work"},
		{"Tabs, not spaces, in the Go code; gofmt decides the rest.", "work"},
		{"The spare key is with Ana, two doors down.", "home"},
		{"Grafana's admin password is reset with grafana cli admin reset-admin-password.", "work"},
	}
	var coffee string
	for _, n := range notes {
		id := learn(t, srv.URL, ownerToken, n.text, map[string]any{"workspace": n.ws})
		if coffee == "" {
			coffee = id
		}
	}
	// A file ingested beside serve (several processes share a home) is
	// listed with its path.
	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "boiler.md"), []byte("# Boiler\n\nThe boiler is serviced every October by Heatwise.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	browsertest.Core(t, "--home", home, "ingest", "--workspace", "home", docs)
	cursor := mcpSession(t, srv.URL, ownerToken, "Cursor")
	if _, failed, err := cursor.tool("memory.learn", map[string]any{"text": "Prefer short commit messages that say why.", "kind": "preference", "workspace": "work"}); err != nil || failed != "" {
		t.Fatalf("learn over MCP: %v %s", err, failed)
	}
	if _, err := rpcCall(srv.URL, ownerToken, "openhuman.tools_web_search", map[string]any{"query": "go html templates"}); err != nil {
		t.Fatalf("web search: %v", err)
	}
	// One run decided, one left waiting.
	first := cursor.runAgent("note_taker", "Note: the printer on floor 2 is out of toner.")
	id := waitPending(t, srv.URL, ownerToken, 1)[0].(map[string]any)["id"].(string)
	rpc(t, srv.URL, ownerToken, "openhuman.approval_decide", map[string]any{"id": id, "approve": false, "reason": "not a fact worth keeping"})
	<-first
	cursor.runAgent("note_taker", "Note: lunch with the design team on Thursday at noon.")
	waitPending(t, srv.URL, ownerToken, 1)

	p := newPerson(t, srv.URL)
	visit := func(name, path, wait string) {
		t.Helper()
		if path != "" {
			p.open(path)
		}
		p.sees(wait)
		browsertest.Axe(t, p.ctx, name)
		browsertest.Shot(t, p.ctx, name)
	}
	visit("signin", "/console/signin", "Bearer token")
	p.signIn(ownerToken)
	visit("memory", "/console/memory", "Newest first")
	p.sees("file boiler.md")
	visit("memory-search", "/console/memory?q=coffee&mode=hybrid", `Best matches for “coffee”`)
	visit("item", "/console/memory/item?id="+coffee, "About this item")
	p.open("/console/memory/item?id=" + coffee + "&q=coffee&mode=hybrid")
	p.do("scrolling to why", chromedp.ScrollIntoView("#why"))
	visit("item-why", "", "Why this hit")
	visit("forget-confirm", "/console/memory/forget?id="+coffee, "Forget this item?")
	visit("learn", "/console/memory/learn", "Learn a note")
	visit("sources", "/console/sources", "Where memory's items came from")
	visit("source-items", "/console/sources/items?source=http:owner", "newest first")
	visit("source-forget-confirm", "/console/sources/forget?source=mcp:cursor", "Forget the source mcp:cursor?")
	p.sees("Forget its one item")
	visit("approvals", "/console/approvals", "lunch with the design team")
	visit("tools", "/console/tools", "Tools, over the last hour")
	visit("audit", "/console/audit", "memory.learn")
	visit("connect", "/console/connect", "Claude Desktop")
	// Codex reads the token from a variable of its own: serve reads
	// OPENHUMAN_API_TOKEN as a token of every scope.
	p.sees(`bearer_token_env_var = "OPENHUMAN_TOKEN"`)
	configsParse(t, p)
	visit("not-found", "/console/no-such-page", "There is no such page in the console.")
	p.open("/console/memory/forget?id=" + coffee)
	p.do("forgetting", chromedp.Click(`form[action="/console/memory/forget"] button`))
	visit("forgotten", "", "memory answers that no such item exists")
	p.open("/console/memory")
	p.do("signing out", chromedp.Click(`form.signout button`))
	visit("signed-out", "", "Your session has ended")
	if strings.Contains(p.html(), ownerToken) {
		t.Error("a page shows the token")
	}
}

// configsParse checks that each configuration the connect page shows, read
// as its Copy button copies it, is what its client's file takes: a person
// pastes the whole block.
func configsParse(t *testing.T, p *person) {
	t.Helper()
	blocks, err := chromedp.Run(p.ctx, chromedp.Evaluate[[][]string](
		`[...document.querySelectorAll("main section")].map(s => [s.querySelector("h2").textContent, s.querySelector("pre").textContent])`))
	if err != nil || len(blocks) < 6 {
		t.Fatalf("the connect page's configurations: %v (%q)", err, blocks)
	}
	for _, b := range blocks {
		client, text := b[0], b[1]
		switch client {
		case "Claude Code": // shell lines: each a command or a comment
			for _, line := range strings.Split(text, "\n") {
				if line != "" && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "claude mcp add ") {
					t.Errorf("Claude Code's block holds a line a shell would not take as meant: %q", line)
				}
			}
		case "Codex":
			var cfg struct {
				MCPServers map[string]map[string]any `toml:"mcp_servers"`
			}
			if _, err := toml.Decode(text, &cfg); err != nil {
				t.Errorf("Codex's block is not TOML Codex can read: %v\n%s", err, text)
			} else if cfg.MCPServers["openhuman"]["url"] == nil {
				t.Errorf("Codex's block names no url for openhuman:\n%s", text)
			}
		default:
			if !json.Valid([]byte(text)) {
				t.Errorf("%s's block is not JSON:\n%s", client, text)
			}
		}
	}
}

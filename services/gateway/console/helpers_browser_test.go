package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/services/gateway/console/browsertest"
)

// The browser tests run the real `openhuman-core serve` and drive its
// console in headless Chromium, as a person would: typing, clicking,
// reading what the page says. What happened is then checked over /rpc.

// browser is one Chromium for every test of the package.
var browser *browsertest.Browser

// person is a tab with cookies of its own, at a server.
type person struct {
	t    *testing.T
	ctx  context.Context
	base string
}

func newPerson(t *testing.T, base string) *person {
	t.Helper()
	// One browser for the package: started by the first test that
	// needs it, living past it (its cleanup is the process's exit).
	if browser == nil {
		browser = browsertest.Start(&keepAlive{T: t})
	}
	return &person{t: t, ctx: browser.Tab(t), base: base}
}

// keepAlive defers a cleanup to the end of the test binary, so the
// browser outlives the test that started it.
type keepAlive struct{ *testing.T }

func (k *keepAlive) Cleanup(f func()) { cleanups = append(cleanups, f) }

var cleanups []func()

func TestMain(m *testing.M) {
	code := m.Run()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	browsertest.RemoveBuilds()
	os.Exit(code)
}

// do runs browser actions, failing the test with the page's text when one fails.
func (p *person) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatalf("%s: %v\npage at %s:\n%s", what, err, p.location(), p.bodyText())
	}
}

func (p *person) open(path string) {
	p.t.Helper()
	p.do("opening "+path, chromedp.Navigate(p.base+path), chromedp.WaitReady("body"))
}

func (p *person) location() string {
	loc, _ := chromedp.Run(p.ctx, chromedp.Location())
	return loc
}

func (p *person) bodyText() string {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	return s
}

func (p *person) html() string {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`))
	return s
}

// sees waits until the page's text holds want.
func (p *person) sees(want string) {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if strings.Contains(p.bodyText(), want) {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the page at %s never showed %q:\n%s", p.location(), want, p.bodyText())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// signIn signs in with token through the sign-in form.
func (p *person) signIn(token string) {
	p.t.Helper()
	p.open("/console/")
	p.do("signing in", chromedp.WaitVisible("#token"), chromedp.SendKeys("#token", token), chromedp.Submit("#token"))
	p.sees("Newest first")
}

// token is a configured bearer token.
type token struct {
	name, secret string
	scopes       []string
	workspaces   []string
}

// writeTokens writes a config.toml declaring tokens into home.
func writeTokens(t *testing.T, home string, tokens ...token) {
	t.Helper()
	var b strings.Builder
	for _, tk := range tokens {
		fmt.Fprintf(&b, "[[auth.tokens]]\nname = %q\nsha256 = %q\nscopes = %s\n", tk.name, config.HashToken(tk.secret), tomlList(tk.scopes))
		if len(tk.workspaces) > 0 {
			fmt.Fprintf(&b, "workspaces = %s\n", tomlList(tk.workspaces))
		}
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

func tomlList(ss []string) string {
	b, _ := json.Marshal(ss)
	return string(b)
}

// rpc calls method over /rpc with token and returns its result, failing
// on an error.
func rpc(t *testing.T, base, tok, method string, params any) map[string]any {
	t.Helper()
	res, err := rpcCall(base, tok, method, params)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return res
}

func rpcCall(base, tok, method string, params any) (map[string]any, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, base+"/rpc", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Result map[string]any `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("%s: %s", err, raw)
	}
	if out.Error != nil {
		return nil, fmt.Errorf("%s", out.Error.Message)
	}
	return out.Result, nil
}

// learn stores text over /rpc and returns its id.
func learn(t *testing.T, base, tok, text string, extra map[string]any) string {
	t.Helper()
	params := map[string]any{"text": text}
	for k, v := range extra {
		params[k] = v
	}
	return rpc(t, base, tok, "openhuman.memory_learn", params)["id"].(string)
}

// fetchIDs are the ids memory.fetch finds for query over /rpc.
func fetchIDs(t *testing.T, base, tok, query string) []string {
	t.Helper()
	var ids []string
	for _, h := range rpc(t, base, tok, "openhuman.memory_fetch", map[string]any{"query": query})["hits"].([]any) {
		ids = append(ids, h.(map[string]any)["id"].(string))
	}
	return ids
}

// mcpClient is an MCP session over Streamable HTTP, as a remote client
// opens one.
type mcpClient struct {
	base, token, session string
}

func mcpSession(t *testing.T, base, tok, client string) *mcpClient {
	t.Helper()
	c := &mcpClient{base: base, token: tok}
	resp, body, err := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"` + client + `","version":"1"}}}`)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %v %s", err, body)
	}
	c.session = resp.Header.Get("Mcp-Session-Id")
	if _, body, err := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		t.Fatalf("initialized: %v %s", err, body)
	}
	return c
}

func (c *mcpClient) post(body string) (*http.Response, []byte, error) {
	req, _ := http.NewRequest(http.MethodPost, c.base+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp, raw, err
}

// tool calls a tool and returns its structured result, or the error text
// of a failed call.
func (c *mcpClient) tool(name string, args any) (map[string]any, string, error) {
	a, _ := json.Marshal(args)
	_, body, err := c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + string(a) + `}}`)
	if err != nil {
		return nil, "", err
	}
	var out struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent map[string]any `json:"structuredContent"`
			IsError           bool           `json:"isError"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, "", fmt.Errorf("%v: %s", err, body)
	}
	if out.Error != nil {
		return nil, out.Error.Message, nil
	}
	if out.Result.IsError && len(out.Result.Content) > 0 {
		return nil, out.Result.Content[0].Text, nil
	}
	return out.Result.StructuredContent, "", nil
}

// runAgent starts a sub-agent run over MCP and returns a channel that
// gets its result (or the failure's text) when it ends.
func (c *mcpClient) runAgent(agent, prompt string) <-chan string {
	done := make(chan string, 1)
	go func() {
		res, failed, err := c.tool("agent.run_subagent", map[string]any{"agent_id": agent, "prompt": prompt})
		switch {
		case err != nil:
			done <- "error: " + err.Error()
		case failed != "":
			done <- failed
		default:
			done <- fmt.Sprint(res["response"])
		}
	}()
	return done
}

// waitPending waits until n calls wait for approval, and returns them.
func waitPending(t *testing.T, base, tok string, n int) []any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		pending := rpc(t, base, tok, "openhuman.approval_list", map[string]any{})["pending"].([]any)
		if len(pending) >= n {
			return pending
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d calls wait for approval, want %d", len(pending), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// allTexts are the texts of every item the token sees (up to 100).
func allTexts(t *testing.T, base, tok string) []string {
	t.Helper()
	var out []string
	for _, it := range rpc(t, base, tok, "openhuman.memory_items_list", map[string]any{"limit": 100})["items"].([]any) {
		out = append(out, it.(map[string]any)["text"].(string))
	}
	return out
}

package console_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/openhuman-go/openhuman-go/services/gateway/console/browsertest"
)

// oauthResult is what testdata/oauth.mjs prints.
type oauthResult struct {
	Registered string `json:"registered"`
	StateOK    bool   `json:"state_ok"`
	Iss        string `json:"iss"`
	First      string `json:"first"`
	Scope      string `json:"scope"`
	Tools      int    `json:"tools"`
	Fetch      struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
	} `json:"fetch"`
	Learn           string `json:"learn"`
	RegisteredAgain bool   `json:"registered_again"`
	AfterRefresh    string `json:"after_refresh"`
	Refreshed       bool   `json:"refreshed"`
	Revoked         int    `json:"revoked"`
	AfterRevoke     string `json:"after_revoke"`
	AskedAgain      bool   `json:"asked_again"`
}

// oauthClient is a running testdata/oauth.mjs.
type oauthClient struct {
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	authorize chan string
	waiting   chan struct{}
	done      chan oauthResult
}

func runOAuthClient(t *testing.T, base, mode string) *oauthClient {
	t.Helper()
	modules := browsertest.NodeModules(t)
	script := filepath.Join(filepath.Dir(modules), "oauth-test.mjs")
	src, err := os.ReadFile("testdata/oauth.mjs")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, src, 0o644); err != nil {
		t.Fatal(err)
	}
	c := &oauthClient{cmd: exec.Command("node", script, base, mode), authorize: make(chan string, 4), waiting: make(chan struct{}), done: make(chan oauthResult, 1)}
	var stdout bytes.Buffer
	c.cmd.Stdout = &stdout
	stderr, _ := c.cmd.StderrPipe()
	c.stdin, _ = c.cmd.StdinPipe()
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.cmd.Process.Kill() })
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			log.WriteString(line + "\n")
			if u, ok := strings.CutPrefix(line, "authorize: "); ok {
				c.authorize <- u
			}
			if line == "waiting" {
				close(c.waiting)
			}
		}
		var res oauthResult
		if err := c.cmd.Wait(); err != nil || json.Unmarshal(stdout.Bytes(), &res) != nil {
			t.Errorf("the TypeScript client failed: %v\n%s\n%s", err, stdout.String(), log.String())
		}
		c.done <- res
	}()
	return c
}

func (c *oauthClient) authorizationURL(t *testing.T) string {
	t.Helper()
	select {
	case u := <-c.authorize:
		return u
	case <-time.After(60 * time.Second):
		t.Fatal("the client never asked for authorization")
		return ""
	}
}

func (c *oauthClient) result(t *testing.T) oauthResult {
	t.Helper()
	select {
	case r := <-c.done:
		return r
	case <-time.After(90 * time.Second):
		t.Fatal("the TypeScript client did not finish")
		return oauthResult{}
	}
}

// serveOAuth runs serve with its public URL its own loopback address,
// which turns on the built-in authorization server (plain http is taken
// for a loopback address, to test).
func serveOAuth(t *testing.T, tokens ...token) *browsertest.Server {
	t.Helper()
	home := t.TempDir()
	writeTokens(t, home, tokens...)
	addr := browsertest.FreeAddr(t)
	return browsertest.ServeOn(t, home, addr, "OPENHUMAN_HTTP_PUBLIC_URL=http://"+addr)
}

// consentAs answers the consent page at authorize: signs in with tok on
// the way, leaves act unticked unless grantAct, and allows.
func consentAs(t *testing.T, p *person, authorize, tok string, grantAct bool) {
	t.Helper()
	p.do("opening the authorization URL", chromedp.Navigate(authorize), chromedp.WaitVisible("#token"))
	p.do("signing in", chromedp.SendKeys("#token", tok), chromedp.Submit("#token"))
	p.sees("Connect TS SDK test client?")
	if !strings.HasPrefix(p.location(), p.base+"/console/oauth/consent?request=") {
		t.Fatalf("the consent page is at %s", p.location())
	}
	p.sees("an address on your own computer")
	browsertest.Shot(t, p.ctx, "oauth-consent")
	browsertest.Axe(t, p.ctx, "the consent page")
	browsertest.Shot(t, p.ctx, "consent")
	if !grantAct {
		p.do("unticking act", chromedp.Click("#scope-act"))
	}
	consent := p.location()
	p.do("allowing", chromedp.Click(`button[value="approve"]`))
	p.sees("Signed in: you can close this tab.")
	// Back on the page (a reload, the Back button), the answered request
	// asks no more.
	p.do("opening the answered request again", chromedp.Navigate(consent))
	p.sees("was already answered")
	browsertest.Shot(t, p.ctx, "oauth-consent-answered")
	if strings.Contains(p.html(), `value="approve"`) {
		t.Error("the answered request's page still offers Allow")
	}
}

// TestOAuthSignIn: the official TypeScript SDK's client, told nothing but
// the server's URL, discovers the authorization server, registers,
// sends the person to the consent page (answered here in Chromium,
// granting read only), gets its tokens and calls tools within them; it
// renews its access token, revokes its grant, and is refused after.
//
// With OPENHUMAN_TEST_OAUTH_SERVER set to a running gateway's URL (the
// local compose stack: make up-local with OPENHUMAN_HTTP_PUBLIC_URL set
// to it) the same is done there, signing in with OPENHUMAN_API_TOKEN.
func TestOAuthSignIn(t *testing.T) {
	browsertest.Require(t)
	base, owner := os.Getenv("OPENHUMAN_TEST_OAUTH_SERVER"), os.Getenv("OPENHUMAN_API_TOKEN")
	if base == "" {
		base, owner = serveOAuth(t, token{name: "owner", secret: ownerToken, scopes: []string{"read", "act"}}).URL, ownerToken
	}
	srv := &browsertest.Server{URL: base}
	learn(t, srv.URL, owner, "The zqoauthword badge opens the east door.", nil)
	p := newPerson(t, srv.URL)

	client := runOAuthClient(t, srv.URL, "revoke")
	authorize := client.authorizationURL(t)
	if !strings.HasPrefix(authorize, srv.URL+"/oauth/authorize?") || !strings.Contains(authorize, "code_challenge_method=S256") || !strings.Contains(authorize, "resource=") {
		t.Fatalf("authorization URL %s", authorize)
	}
	consentAs(t, p, authorize, owner, false)
	res := client.result(t)
	if res.First != "unauthorized" || res.Registered == "" || !res.StateOK || res.Iss != srv.URL || res.Scope != "read" || res.Tools == 0 {
		t.Fatalf("the sign-in: %+v", res)
	}
	hits, _ := res.Fetch.StructuredContent["hits"].([]any)
	if res.Fetch.IsError || len(hits) != 1 || !strings.Contains(hits[0].(map[string]any)["text"].(string), "east door") {
		t.Errorf("memory.fetch with the read grant: %+v", res.Fetch)
	}
	if !strings.HasPrefix(res.Learn, "refused: ") || !strings.Contains(res.Learn, "was granted scope read; memory.learn needs scope act") {
		t.Errorf("memory.learn without act: %q", res.Learn)
	}
	if !res.Refreshed || !strings.Contains(res.AfterRefresh, "east door") {
		t.Errorf("the refresh: %v, then %q", res.Refreshed, res.AfterRefresh)
	}
	if res.Revoked != 200 || !strings.HasPrefix(res.AfterRevoke, "unauthorized") || !res.AskedAgain {
		t.Errorf("after revoking: status %d, then %q (asked to sign in again: %v)", res.Revoked, res.AfterRevoke, res.AskedAgain)
	}
	for _, text := range allTexts(t, srv.URL, owner) {
		if strings.Contains(text, "may not write this") {
			t.Errorf("a read-only grant stored %q", text)
		}
	}
}

// TestOAuthRevokeInConsole: a connected client is listed with its last
// use, and its Revoke button ends its access; the client is refused next.
func TestOAuthRevokeInConsole(t *testing.T) {
	browsertest.Require(t)
	srv := serveOAuth(t, token{name: "owner", secret: ownerToken, scopes: []string{"read", "act"}})
	learn(t, srv.URL, ownerToken, "The zqoauthword lift is serviced on Fridays.", nil)
	p := newPerson(t, srv.URL)
	client := runOAuthClient(t, srv.URL, "console")
	consentAs(t, p, client.authorizationURL(t), ownerToken, true)
	select {
	case <-client.waiting:
	case <-time.After(60 * time.Second):
		t.Fatal("the client never got to wait")
	}
	p.open("/console/clients")
	p.sees("TS SDK test client")
	browsertest.Shot(t, p.ctx, "clients")
	row, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.querySelector("main table tbody tr").innerText`))
	if err != nil || !strings.Contains(row, "owner") || !strings.Contains(row, "read, act") || !strings.Contains(row, "s ago") {
		t.Fatalf("the client's row %q %v", row, err)
	}
	// The token it came from is named, never shown.
	p.sees("Granted with token")
	if html := p.html(); !strings.Contains(html, "<code>owner</code>") || strings.Contains(html, ownerToken) {
		t.Errorf("the row does not name the token owner, or shows its secret")
	}
	browsertest.Axe(t, p.ctx, "the clients page")
	browsertest.Shot(t, p.ctx, "clients")
	p.do("revoking", chromedp.Click(`main table button[type="submit"]`))
	p.sees("Revoked: its tokens no longer work.")
	p.sees("No client is connected by OAuth.")
	_, _ = io.WriteString(client.stdin, "go\n")
	res := client.result(t)
	// Its client was removed with its grant: invalid_client, so it registers anew.
	if !strings.HasPrefix(res.AfterRevoke, "unauthorized") || !res.AskedAgain || !res.RegisteredAgain {
		t.Errorf("after the console revoked it: %q (asked to sign in again: %v, registered again: %v)", res.AfterRevoke, res.AskedAgain, res.RegisteredAgain)
	}
}

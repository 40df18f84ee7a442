package console_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/openhuman-go/openhuman-go/services/gateway/console/browsertest"
)

// TestLimitedTokenSeesOnlyItsWorkspace: a token limited to the workspace
// "work" sees nothing of "home" on any page, as over the API.
func TestLimitedTokenSeesOnlyItsWorkspace(t *testing.T) {
	browsertest.Require(t)
	home := t.TempDir()
	writeTokens(t, home,
		token{name: "owner", secret: ownerToken, scopes: []string{"read", "act"}},
		token{name: "worker", secret: limitedToken, scopes: []string{"read", "act"}, workspaces: []string{"work"}})
	srv := browsertest.ServeIn(t, home)
	private := learn(t, srv.URL, ownerToken, "The zqhomeword safe code is under the stairs.", map[string]any{"workspace": "home"})
	learn(t, srv.URL, ownerToken, "The zqworkword build runs at night.", map[string]any{"workspace": "work"})
	learn(t, srv.URL, limitedToken, "The zqworkword review is on Tuesdays.", nil)

	owner := newPerson(t, srv.URL)
	owner.signIn(ownerToken)
	owner.open("/console/memory")
	owner.sees("zqhomeword") // the owner sees both: the check below can fail

	p := newPerson(t, srv.URL)
	p.signIn(limitedToken)
	for _, path := range []string{"/console/memory", "/console/memory?q=safe+code+under+the+stairs", "/console/memory?q=safe+code+stairs&mode=keyword",
		"/console/sources", "/console/sources/items?source=http:owner", "/console/approvals", "/console/tools", "/console/audit",
		"/console/audit?token=owner", "/console/connect"} {
		p.open(path)
		if text := p.bodyText(); strings.Contains(text, "zqhomeword") {
			t.Errorf("%s shows the other workspace to a limited token:\n%s", path, text)
		}
	}
	// The owner wrote one item in each workspace: its source counts one here.
	p.open("/console/sources/items?source=http:owner")
	p.sees("1 items, newest first.")
	// The audit shows the token its own rows only, not the owner's.
	p.open("/console/audit?token=owner")
	if text := p.bodyText(); strings.Contains(text, "http:owner") {
		t.Errorf("the audit shows the owner's rows to a limited token:\n%s", text)
	}
	p.open("/console/memory")
	p.sees("zqworkword review")
	p.sees("workspaces work")
	p.open("/console/memory/item?id=" + private)
	p.sees("no chunk") // as if it did not exist
	p.open("/console/audit")
	p.sees("Your token is limited to workspaces, so you see its own rows only.")
}

// TestForgedRequestsAreRefused: a POST without the session's CSRF token,
// a form posted from another site, and the console framed by another
// site are all refused, and nothing they asked for happens.
func TestForgedRequestsAreRefused(t *testing.T) {
	browsertest.Require(t)
	home := t.TempDir()
	writeTokens(t, home, token{name: "owner", secret: ownerToken, scopes: []string{"read", "act"}})
	srv := browsertest.ServeIn(t, home)
	kept := learn(t, srv.URL, ownerToken, "The zqkeepword note stays.", nil)
	p := newPerson(t, srv.URL)
	p.signIn(ownerToken)

	// The session's own cookie, with every field but the CSRF token.
	cookies, err := chromedp.Call(p.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{srv.URL}})
	if err != nil || len(cookies.Cookies) != 1 {
		t.Fatalf("cookies %+v %v", cookies, err)
	}
	c := cookies.Cookies[0]
	if !c.HTTPOnly || c.SameSite != network.CookieSameSiteStrict {
		t.Errorf("the session cookie is not HttpOnly and SameSite=Strict: %+v", c)
	}
	for _, form := range []url.Values{{"id": {kept}}, {"id": {kept}, "csrf": {"forged"}}} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/console/memory/forget", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "CSRF token is missing or stale") {
			t.Errorf("a forget with csrf %q: %d %s", form.Get("csrf"), resp.StatusCode, body)
		}
	}

	// Another site (localhost is not 127.0.0.1) posts a form to the console
	// in the person's browser, and frames it.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/post":
			fmt.Fprintf(w, `<form id="f" method="post" action="%s/console/memory/learn"><input name="text" value="Planted zqplantedword."></form>`+
				`<script>document.getElementById("f").submit()</script>`, srv.URL)
		case "/frame":
			fmt.Fprintf(w, `<iframe id="console" src="%s/console/memory"></iframe><iframe id="open" src="%s/healthz"></iframe>`, srv.URL, srv.URL)
		}
	}))
	defer evil.Close()
	evilURL := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)

	p.do("a cross-site form post", chromedp.Navigate(evilURL+"/post"))
	p.sees("came from another site's page, so it was refused")
	if texts := allTexts(t, srv.URL, ownerToken); len(texts) != 1 {
		t.Fatalf("the cross-site post learned: %q", texts)
	}

	framer := &person{t: t, ctx: browsertest.Start(t, browsertest.InProcessFrames...).Tab(t), base: srv.URL}
	framer.signIn(ownerToken)
	framer.do("framing the console", chromedp.Navigate(evilURL+"/frame"), chromedp.WaitReady("#open"))
	frames := frameURLs(t, framer, srv.URL+"/healthz")
	if strings.HasPrefix(frames[0], srv.URL) {
		t.Errorf("the console loaded inside another site's frame: %q", frames)
	}
}

// frameURLs are the URLs of the frames of p's page, once its second frame
// (the control, a page with no frame policy) has loaded. A frame a page
// refused to be framed in is left at Chromium's error page; the others
// show their URL, so a console page that loaded would show as its own.
func frameURLs(t *testing.T, p *person, control string) []string {
	t.Helper()
	var frames []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		tree, err := chromedp.Call(p.ctx, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		frames = nil
		for _, child := range tree.FrameTree.ChildFrames {
			frames = append(frames, child.Frame.URL)
		}
		if len(frames) == 2 && frames[1] == control && frames[0] != "" && frames[0] != "about:blank" {
			break
		}
	}
	t.Logf("frames: %q", frames)
	if len(frames) != 2 || frames[1] != control {
		t.Fatalf("the control frame did not load: %q", frames)
	}
	return frames
}

// TestSignOutEndsTheSession: after signing out, the session's cookie
// opens nothing, in the browser or sent again by hand.
func TestSignOutEndsTheSession(t *testing.T) {
	browsertest.Require(t)
	home := t.TempDir()
	writeTokens(t, home, token{name: "owner", secret: ownerToken, scopes: []string{"read", "act"}})
	srv := browsertest.ServeIn(t, home)
	p := newPerson(t, srv.URL)
	p.signIn(ownerToken)
	cookies, err := chromedp.Call(p.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{srv.URL}})
	if err != nil || len(cookies.Cookies) != 1 {
		t.Fatalf("cookies %+v %v", cookies, err)
	}
	stolen := cookies.Cookies[0]
	get := func() int {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/console/memory", nil)
		req.AddCookie(&http.Cookie{Name: stolen.Name, Value: stolen.Value})
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(); code != http.StatusOK {
		t.Fatalf("the session's cookie before signing out: %d", code)
	}
	p.do("signing out", chromedp.Click(`form.signout button`))
	p.sees("Your session has ended")
	if code := get(); code != http.StatusSeeOther {
		t.Errorf("the session's cookie after signing out: %d, want a redirect to sign in", code)
	}
	p.open("/console/memory")
	p.sees("Bearer token") // the sign-in form
}

// TestFailedSignInsAreLimited: after five wrong tokens from one address the
// sixth attempt, even with the right token, waits.
func TestFailedSignInsAreLimited(t *testing.T) {
	browsertest.Require(t)
	home := t.TempDir()
	writeTokens(t, home, token{name: "owner", secret: ownerToken, scopes: []string{"read", "act"}})
	srv := browsertest.ServeIn(t, home)
	p := newPerson(t, srv.URL)
	for i := range 5 {
		p.open("/console/signin")
		p.do("a wrong token", chromedp.SendKeys("#token", fmt.Sprintf("oh_wrong-%d-0123456789abcdef0123", i)), chromedp.Submit("#token"))
		p.sees("That token matches no token of this server.")
	}
	p.open("/console/signin")
	p.do("the right token, too late", chromedp.SendKeys("#token", ownerToken), chromedp.Submit("#token"))
	p.sees("Too many failed sign-ins from your address")
}

package console_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/openhuman-go/openhuman-go/services/gateway/console/browsertest"
)

// pendingConsent registers a client and starts an authorization over
// plain HTTP, as a client would, and returns the consent page's URL.
func pendingConsent(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Post(base+"/oauth/register", "application/json", strings.NewReader(`{"client_name":"Framed App","redirect_uris":["http://127.0.0.1:9/cb"],"token_endpoint_auth_method":"none"}`))
	if err != nil {
		t.Fatal(err)
	}
	var reg map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&reg)
	resp.Body.Close()
	q := url.Values{"response_type": {"code"}, "client_id": {fmt.Sprint(reg["client_id"])}, "redirect_uri": {"http://127.0.0.1:9/cb"}, "state": {"s"},
		"code_challenge": {strings.Repeat("A", 43)}, "code_challenge_method": {"S256"}, "scope": {"read act"}}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = noFollow.Get(base + "/oauth/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("authorize: %d", resp.StatusCode)
	}
	return resp.Header.Get("Location")
}

// TestConsentAttacks: the consent page cannot be framed by another site
// (a click on Allow there would grant access), and a person cannot grant
// a scope or workspace their token lacks, even by forging the form.
func TestConsentAttacks(t *testing.T) {
	browsertest.Require(t)
	srv := serveOAuth(t, token{name: "owner", secret: ownerToken, scopes: []string{"read", "act"}},
		token{name: "reader", secret: readerToken, scopes: []string{"read"}, workspaces: []string{"work"}})

	t.Run("framed by another site", func(t *testing.T) {
		consent := pendingConsent(t, srv.URL)
		evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<iframe id="consent" src="%s"></iframe><iframe id="open" src="%s/healthz"></iframe>`, consent, srv.URL)
		}))
		defer evil.Close()
		framer := &person{t: t, ctx: browsertest.Start(t, browsertest.InProcessFrames...).Tab(t), base: srv.URL}
		framer.signIn(ownerToken)
		framer.open(strings.TrimPrefix(consent, srv.URL)) // the page itself opens, signed in
		framer.sees("Connect Framed App?")
		framer.do("framing the consent page", chromedp.Navigate(strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)), chromedp.WaitReady("#open"))
		if frames := frameURLs(t, framer, srv.URL+"/healthz"); strings.HasPrefix(frames[0], srv.URL) {
			t.Errorf("the consent page loaded inside another site's frame: %q", frames)
		}
		// The frame was sent no cookie (SameSite=Strict); the page itself,
		// with the person's cookie, forbids framing as well.
		cookies, err := chromedp.Call(framer.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{srv.URL}})
		if err != nil || len(cookies.Cookies) != 1 {
			t.Fatalf("cookies %+v %v", cookies, err)
		}
		req, _ := http.NewRequest(http.MethodGet, consent, nil)
		req.AddCookie(&http.Cookie{Name: cookies.Cookies[0].Name, Value: cookies.Cookies[0].Value})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(string(body), "Connect Framed App?") || !strings.Contains(csp, "frame-ancestors 'none'") || resp.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("the consent page may be framed: CSP %q, X-Frame-Options %q", csp, resp.Header.Get("X-Frame-Options"))
		}
		if !strings.Contains(csp, "form-action 'self' http://127.0.0.1:9") {
			t.Errorf("the consent page's forms cannot lead back to the client: CSP %q", csp)
		}
	})
	t.Run("beyond the signed-in token", func(t *testing.T) {
		p := newPerson(t, srv.URL)
		p.do("opening the consent page", chromedp.Navigate(pendingConsent(t, srv.URL)), chromedp.WaitVisible("#token"))
		p.do("signing in", chromedp.SendKeys("#token", readerToken), chromedp.Submit("#token"))
		p.sees("your token does not hold act, so it cannot grant it")
		disabled, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`document.querySelector("#scope-act").disabled`))
		if err != nil || !disabled {
			t.Fatalf("act can be ticked with a read-only token: %v %v", disabled, err)
		}
		// Forged: act ticked, and a workspace the token does not reach.
		p.do("forging the form", chromedp.Evaluate[chromedp.Void](`const a = document.querySelector("#scope-act"); a.disabled = false; a.checked = true;`))
		p.do("allowing", chromedp.Click(`button[value="approve"]`))
		p.sees(`your token reader does not hold scope "act"`)
		p.do("forging a workspace", chromedp.Evaluate[chromedp.Void](`const w = document.querySelector("#workspace-work"); w.value = "home";`))
		p.do("allowing", chromedp.Click(`button[value="approve"]`))
		p.sees(`your token reader does not reach workspace "home"`)
		p.do("unticking the workspace", chromedp.Click("#workspace-work"))
		p.do("allowing", chromedp.Click(`button[value="approve"]`))
		p.sees("tick at least one workspace")
	})
}

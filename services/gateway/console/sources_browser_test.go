package console_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/openhuman-go/openhuman-go/services/gateway/console/browsertest"
)

// TestForgetAFolder: a folder of sixty files ingested is one row of the
// sources page, opened it lists its files a page at a time, a search
// finds one by name, and "forget this folder" says how many items go
// before they go, in one audited call; the rest of memory stays. At a
// phone's width no page of it runs off the screen.
func TestForgetAFolder(t *testing.T) {
	browsertest.Require(t)
	home := t.TempDir()
	writeTokens(t, home, token{name: "owner", secret: ownerToken, scopes: []string{"read", "act"}})
	srv := browsertest.ServeIn(t, home)
	docs := t.TempDir()
	manual := filepath.Join(docs, "manual")
	for i := range 60 {
		writeFile(t, filepath.Join(manual, fmt.Sprintf("page-%02d.md", i)), fmt.Sprintf("# Page %d\n\nWhat page %d of the manual says.\n", i, i))
	}
	writeFile(t, filepath.Join(docs, "recipes", "soup.md"), "# Soup\n\nLeek soup wants a potato.\n")
	browsertest.Core(t, "--home", home, "ingest", "--workspace", "home", docs)
	learn(t, srv.URL, ownerToken, "I live in Porto.", nil)

	// A browser asks for the site's icon before anyone signs in.
	resp, err := http.Get(srv.URL + "/favicon.ico")
	if err != nil || resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "image/svg+xml") {
		t.Fatalf("/favicon.ico without a token: %v %v", resp, err)
	}
	resp.Body.Close()

	p := newPerson(t, srv.URL)
	p.signIn(ownerToken)
	p.open("/console/sources")
	p.sees("Folders")
	p.sees(manual)
	p.do("opening the folder", chromedp.Click(`a[href="/console/sources?folder=`+strings.ReplaceAll(manual, "/", "%2f")+`"]`))
	p.sees("60 files ingested from this folder or below it, 60 items.")
	p.sees("1–50.")
	p.do("turning the page", chromedp.Click(`a[rel="next"]`))
	p.sees("51–60.")
	p.sees("page-59.md")

	p.open("/console/sources?q=soup")
	p.sees("soup.md")
	if strings.Contains(p.bodyText(), "page-01.md") {
		t.Error("a search for soup lists the manual's pages")
	}

	p.open("/console/sources?folder=" + manual)
	p.do("asking to forget the folder", chromedp.Click(`a[href^="/console/sources/forget"]`))
	p.sees("Forget the folder " + manual + "?")
	p.sees("Forget all 60 items")
	p.do("confirming", chromedp.Click(`form[action="/console/sources/forget"] button`))
	p.sees("60 items of " + manual + " were forgotten.")
	texts := strings.Join(allTexts(t, srv.URL, ownerToken), "|")
	if strings.Contains(texts, "of the manual says") || !strings.Contains(texts, "Leek soup") || !strings.Contains(texts, "I live in Porto.") {
		t.Fatalf("memory after forgetting the folder: %s", texts)
	}
	p.open("/console/audit")
	p.sees(`"forgotten": 60`)

	for _, path := range []string{"/console/sources", "/console/sources?folder=" + filepath.Join(docs, "recipes"), "/console/tools", "/console/audit"} {
		narrow(t, p, path)
	}
}

// narrow opens path at a phone's width (390 px) and fails when the page
// is wider than the screen: a table cut off, a path that will not break.
func narrow(t *testing.T, p *person, path string) {
	t.Helper()
	narrowAt(t, p, path, "")
}

// narrowAt is narrow with the screenshot scrolled to the element sel
// (none: the top of the page).
func narrowAt(t *testing.T, p *person, path, sel string) {
	t.Helper()
	p.do("narrowing the window", chromedp.EmulateViewport(390, 844))
	defer p.do("widening the window", chromedp.EmulateViewport(browsertest.Width, browsertest.Height))
	p.open(path)
	wide, err := chromedp.Run(p.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	if err != nil {
		t.Fatal(err)
	}
	if wide > 390 {
		t.Errorf("%s at 390 px is %d px wide", path, wide)
	}
	if sel != "" {
		p.do("scrolling to "+sel, chromedp.ScrollIntoView(sel))
	}
	browsertest.Shot(t, p.ctx, "narrow"+strings.NewReplacer("/", "-", "?", "-", "=", "-", "&", "-").Replace(path))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

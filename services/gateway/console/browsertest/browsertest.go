// Package browsertest drives real headless Chromium (Debian's chromium)
// from Go tests with chromedp: a browser per test binary, a tab with a
// cookie jar of its own per person, axe-core run inside a page, and
// screenshots at 1280×800. Serve runs the real openhuman-core serve for
// the pages to come from. Pages of the gateway (the console, and any
// consent page built on its sign-in) are tested with it.
//
// Without chromium, or without the npm tools scripts/console-tools.sh
// installs into .cache/console, a test skips saying so; with
// OPENHUMAN_TEST_BROWSER=1 (as .ci/run sets) it fails instead.
package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Environment variables.
const (
	// EnvRequire, set to 1, makes a missing browser or tool fail a test.
	EnvRequire = "OPENHUMAN_TEST_BROWSER"
	// EnvChromium names the browser (default: chromium on PATH).
	EnvChromium = "OPENHUMAN_CHROMIUM"
	// EnvNodeModules names the npm packages' directory (default:
	// .cache/console/node_modules at the repository's root).
	EnvNodeModules = "OPENHUMAN_CONSOLE_NODE_MODULES"
	// EnvShots is a directory: Shot writes its screenshots there.
	EnvShots = "OPENHUMAN_CONSOLE_SHOTS"
)

// Width and Height are the screenshots' viewport.
const (
	Width  = 1280
	Height = 800
)

// missing skips tb, or fails it when EnvRequire is set.
func missing(tb testing.TB, what string) {
	tb.Helper()
	if os.Getenv(EnvRequire) == "1" {
		tb.Fatalf("%s (%s=1: the browser tests must run here)", what, EnvRequire)
	}
	tb.Skip(what)
}

// Require skips tb unless Chromium and the npm tools are installed (or,
// under EnvRequire, fails it), so a browser test says first why it cannot
// run. Under the race detector (make test-race) it always skips: these
// tests drive other processes, which the detector does not watch.
func Require(tb testing.TB) {
	tb.Helper()
	if raced {
		tb.Skip("a browser test: not under the race detector (make test and make test-browser run it)")
	}
	Chromium(tb)
	NodeModules(tb)
}

// Chromium is the browser's path.
func Chromium(tb testing.TB) string {
	tb.Helper()
	name := os.Getenv(EnvChromium)
	if name == "" {
		name = "chromium"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		missing(tb, name+" is not installed: apt-get install chromium, or run scripts/console-tools.sh")
	}
	return p
}

// NodeModules is the directory of the npm packages the tests use.
func NodeModules(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv(EnvNodeModules)
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			missing(tb, err.Error())
		}
		dir = filepath.Join(root, ".cache", "console", "node_modules")
	}
	if _, err := os.Stat(filepath.Join(dir, "axe-core", "axe.min.js")); err != nil {
		missing(tb, "axe-core and the MCP SDK are not installed in "+dir+": run scripts/console-tools.sh")
	}
	return dir
}

// repoRoot is the directory holding go.work, above the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.work above the working directory, so no .cache/console: set %s", EnvNodeModules)
		}
		dir = parent
	}
}

// Browser is one headless Chromium.
type Browser struct {
	alloc context.Context
}

// Start launches Chromium for tb, with extra options after the defaults;
// it is closed when tb ends.
func Start(tb testing.TB, extra ...chromedp.ExecAllocatorOption) *Browser {
	tb.Helper()
	path := Chromium(tb)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // as root (CI) Chromium refuses its sandbox
		chromedp.Flag("disable-gpu", true),
		chromedp.WindowSize(Width, Height),
	)
	opts = append(opts, extra...)
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	tb.Cleanup(cancel)
	// Start it now, so a browser that cannot start fails here.
	ctx, cancelTab := chromedp.NewContext(alloc)
	if err := chromedp.Do(ctx); err != nil {
		cancelTab()
		tb.Fatalf("chromium at %s did not start: %v", path, err)
	}
	tb.Cleanup(cancelTab)
	return &Browser{alloc: ctx}
}

// InProcessFrames keeps frames of other sites in their page's process,
// so that the page's frame tree shows where each one ended up (a frame
// that refused to load is left at Chromium's error page).
var InProcessFrames = []chromedp.ExecAllocatorOption{
	chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,IsolateOrigins,site-per-process"),
	chromedp.Flag("disable-site-isolation-trials", true),
}

// Tab opens a tab in a browser context of its own (its own cookies: a
// person of their own). Its actions must finish within two minutes.
func (b *Browser) Tab(tb testing.TB) context.Context {
	tb.Helper()
	ctx, cancel := chromedp.NewContext(b.alloc, chromedp.WithNewBrowserContext())
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	tb.Cleanup(func() { cancelTime(); cancel() })
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(Width, Height)); err != nil {
		tb.Fatalf("opening a tab: %v", err)
	}
	return ctx
}

// Violation is one axe-core rule a page breaks.
type Violation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any  `json:"target"`
		HTML   string `json:"html"`
	} `json:"nodes"`
}

// Axe runs axe-core on the tab's page and fails tb for every serious or
// critical violation, naming the rule and the elements.
func Axe(tb testing.TB, ctx context.Context, page string) {
	tb.Helper()
	src, err := os.ReadFile(filepath.Join(NodeModules(tb), "axe-core", "axe.min.js"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](string(src))); err != nil {
		tb.Fatalf("%s: loading axe-core: %v", page, err)
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations)`, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.Fatalf("%s: running axe-core: %v", page, err)
	}
	var vs []Violation
	if err := json.Unmarshal(raw, &vs); err != nil {
		tb.Fatalf("%s: reading axe-core's answer: %v", page, err)
	}
	for _, v := range vs {
		if v.Impact != "serious" && v.Impact != "critical" {
			continue
		}
		var where []string
		for _, n := range v.Nodes {
			where = append(where, fmt.Sprint(n.Target)+" "+clip(n.HTML, 120))
		}
		tb.Errorf("%s: axe %s (%s): %s at %s", page, v.ID, v.Impact, v.Help, strings.Join(where, "; "))
	}
}

// Shot writes the tab's viewport (1280×800) to EnvShots/name.png when
// EnvShots is set.
func Shot(tb testing.TB, ctx context.Context, name string) {
	tb.Helper()
	dir := os.Getenv(EnvShots)
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		tb.Fatal(err)
	}
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

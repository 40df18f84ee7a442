package searchmain

import (
	"bytes"
	"log/slog"
	"sort"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/services/search"
)

func TestOptionsFromConfiguration(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{
		"OPENHUMAN_SEARXNG_ENABLED": "true", "OPENHUMAN_SEARXNG_BASE_URL": "http://127.0.0.1:8080", "OPENHUMAN_SEARXNG_MAX_RESULTS": "7",
		"OPENHUMAN_BRAVE_API_KEY": "b", "OPENHUMAN_TAVILY_API_KEY": "t", "OPENHUMAN_EXA_API_KEY": "e", "OPENHUMAN_GEMINI_API_KEY": "g",
		"OPENHUMAN_LLM_MODEL": "writer-model",
	}
	cfg, err := config.Load(home, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Search.Providers["brave"]
	p.RatePerMinute = 30
	cfg.Search.Providers["brave"] = p
	opts := Options(cfg, slog.New(slog.DiscardHandler))
	if got := keys(opts.Providers); got != "brave,exa,searxng,tavily" {
		t.Errorf("providers %s", got)
	}
	if got := keys(opts.Answerers); got != "gemini,tavily" {
		t.Errorf("answerers %s", got)
	}
	if opts.SearXNG != "searxng" || opts.SearXNGMaxResults != 7 || opts.Writer == nil || opts.Writer.Model() != "writer-model" {
		t.Errorf("searxng %q max %d writer %v", opts.SearXNG, opts.SearXNGMaxResults, opts.Writer)
	}
	if l := opts.Limits["brave"]; l.PerMinute != 30 || l.Burst != 1 || len(opts.Limits) != 1 {
		t.Errorf("limits %+v", opts.Limits)
	}
	if got := strings.Join(search.NewService(opts).Tools(), ","); got != "web_search,web_answer,searxng_search" {
		t.Errorf("tools %s", got)
	}

	// Nothing configured: nothing offered.
	cfg, _ = config.Load(t.TempDir(), func(string) string { return "" })
	if tools := search.NewService(Options(cfg, slog.New(slog.DiscardHandler))).Tools(); len(tools) != 0 {
		t.Errorf("tools with nothing configured: %v", tools)
	}
}

func keys[T any](m map[string]T) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// The start-up line names the configured providers only, not every name
// the default roles list.
func TestStartLogsOnlyConfiguredProviders(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	nc, err := ns.Connect("search", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	env := map[string]string{"OPENHUMAN_BRAVE_API_KEY": "b"}
	cfg, err := config.Load(t.TempDir(), func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Bus = bustest.Keys().Service()
	var buf bytes.Buffer
	closer, err := Start(nc, cfg, slog.New(slog.NewTextHandler(&buf, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closer.Close() })
	line := buf.String()
	if !strings.Contains(line, `msg="web tools" tools=web_search,web_answer search=brave`) {
		t.Errorf("start-up log %q", line)
	}
	for _, absent := range []string{"searxng", "tavily", "exa", "gemini", "answer="} {
		if strings.Contains(line, absent) {
			t.Errorf("start-up log names %s, which is not configured: %q", absent, line)
		}
	}
}

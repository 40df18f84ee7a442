package gateway_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/readiness"
	"github.com/openhuman-go/openhuman-go/services/gateway/registry"
)

// The registry's MCP entries are the tools of the gateway's profile:
// an entry is enabled and available exactly when tools/list offers it.
func TestRegistryMCPEntriesMatchToolsList(t *testing.T) {
	ctx := context.Background()
	for _, profile := range []string{contract.ProfileV2, contract.ProfileV1} {
		t.Run(profile, func(t *testing.T) {
			gw := gatewaytest.Start(t, nil, gateway.Options{Profile: profile})
			offered := map[string]bool{}
			for _, tl := range gw.Tools(ctx) {
				offered[tl.Name] = true
			}
			var mcp []string
			for _, e := range gw.Registry(ctx) {
				if e.Transport != registry.TransportMCP {
					continue
				}
				mcp = append(mcp, e.Name)
				tl, ok := contract.ToolFor(profile, e.Name)
				if !ok {
					t.Errorf("%s is listed but is not a tool of the %s surface", e.Name, profile)
					continue
				}
				if live := e.Enabled && e.Health == registry.HealthAvailable; live != offered[e.Name] {
					t.Errorf("%s: enabled %v health %s, but tools/list offers it: %v", e.Name, e.Enabled, e.Health, offered[e.Name])
				}
				if e.InputSchema != tl.Input {
					t.Errorf("%s: the input schema is not the %s tool's", e.Name, profile)
				}
			}
			for _, tl := range contract.ToolsFor(profile) {
				if !slices.Contains(mcp, tl.Name) {
					t.Errorf("%s of the %s surface is not listed", tl.Name, profile)
				}
			}
		})
	}
}

// With no search provider configured, diagnostics do not call search
// available: it answers its ping but serves none of its tools.
func TestDiagnosticsSearchWithoutAProvider(t *testing.T) {
	gw := gatewaytest.Start(t, nil, gateway.Options{})
	d := gw.Diagnostics(context.Background())
	if d.Services[contract.ServiceSearch] != registry.HealthUnavailable || d.Services[contract.ServiceMemory] != registry.HealthAvailable {
		t.Errorf("services %v", d.Services)
	}
	if !strings.Contains(d.ServiceDetail[contract.ServiceSearch], "serves none of its tools, not enabled here: configure a search provider") {
		t.Errorf("detail %q", d.ServiceDetail[contract.ServiceSearch])
	}
	if len(d.SearchProviders) == 0 || d.SearchProviders[0].State != contract.ProviderNotConfigured {
		t.Errorf("search providers %+v", d.SearchProviders)
	}
}

// The unknown-tool error names what tools/list offers now, and a web tool
// without a provider says so without naming itself twice.
func TestErrorsNameOnlyWhatIsOffered(t *testing.T) {
	ctx := context.Background()
	gw := gatewaytest.Start(t, nil, gateway.Options{})
	_, err := gw.CallTool(ctx, "web_serch", nil, contract.CallContext{})
	msg := contract.ErrorMessage(err)
	if !strings.Contains(msg, "memory.recall") {
		t.Fatalf("unknown tool: %s", msg)
	}
	for _, absent := range []string{"web_search", "web_answer", "searxng_search", "memory.search"} {
		if strings.Contains(msg, absent) {
			t.Errorf("the unknown-tool error names %s, which tools/list does not offer: %s", absent, msg)
		}
	}
	_, err = gw.CallTool(ctx, "web_search", []byte(`{"query":"x"}`), contract.CallContext{})
	if msg := contract.ErrorMessage(err); !strings.HasPrefix(msg, "not enabled here: configure a search provider") {
		t.Errorf("web_search without a provider: %q (transports put \"web_search failed: \" before it)", msg)
	}
}

// searxngFake answers like SearXNG: 403 with its default settings.yml
// (json not in search.formats), results once json is allowed.
func searxngFake(t *testing.T) (url string, jsonOn *atomic.Bool) {
	t.Helper()
	jsonOn = &atomic.Bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !jsonOn.Load() {
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, "<html>403 Forbidden</html>")
			return
		}
		io.WriteString(w, `{"query":"q","results":[{"url":"https://example.com/a","title":"A","content":"First.","engine":"duckduckgo"}],"unresponsive_engines":[]}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, jsonOn
}

// Readiness tells a working search from a broken one, and never fails the
// gateway for it.
func TestReadinessShowsSearchProviders(t *testing.T) {
	ctx := context.Background()
	url, jsonOn := searxngFake(t)
	gw := gatewaytest.Start(t, map[string]string{"OPENHUMAN_SEARXNG_ENABLED": "true", "OPENHUMAN_SEARXNG_BASE_URL": url}, gateway.Options{})

	r := gw.Readiness(ctx)
	if !r.Ready || r.Status != readiness.OK || !strings.HasPrefix(r.Services["search"], "untested: searxng: not called") {
		t.Fatalf("before any search: %+v", r)
	}
	if _, err := gw.CallTool(ctx, "web_search", []byte(`{"query":"q"}`), contract.CallContext{}); err == nil {
		t.Fatal("search with json off succeeded")
	}
	r = gw.Readiness(ctx)
	if !r.Ready || r.Status != readiness.Degraded ||
		!strings.HasPrefix(r.Services["search"], "unavailable: every configured provider is skipped: searxng: disabled: SearXNG at "+url+" answered 403: add json") ||
		!strings.Contains(r.Services["search"], "next try in 10m0s") {
		t.Fatalf("with json off: %+v", r)
	}
	i := slices.IndexFunc(r.SearchProviders, func(p contract.SearchProvider) bool { return p.Name == "searxng" })
	if i < 0 || r.SearchProviders[i].State != contract.ProviderDisabled || r.SearchProviders[i].RetryAt == "" {
		t.Fatalf("providers %+v", r.SearchProviders)
	}
	if e, _ := gw.RegistryEntry(ctx, "web_search"); e.Health != registry.HealthUnavailable || !e.Enabled || !strings.Contains(e.HealthDetail.Reason, "403") {
		t.Errorf("web_search entry: %s %+v", e.Health, e.HealthDetail)
	}
	if d := gw.Diagnostics(ctx); d.Services["search"] != registry.HealthUnavailable {
		t.Errorf("diagnostics %v %v", d.Services, d.ServiceDetail)
	}
	jsonOn.Store(true) // comes back at the re-probe: services/search tests it with a clock
}

// A SearXNG that does not answer at all shows as failing, then skipped.
func TestReadinessWithUnreachableSearXNG(t *testing.T) {
	ctx := context.Background()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	gw := gatewaytest.Start(t, map[string]string{"OPENHUMAN_SEARXNG_ENABLED": "true", "OPENHUMAN_SEARXNG_BASE_URL": url}, gateway.Options{})
	_, _ = gw.CallTool(ctx, "web_search", []byte(`{"query":"q1"}`), contract.CallContext{})
	if r := gw.Readiness(ctx); r.Status != readiness.Degraded || !strings.HasPrefix(r.Services["search"], "degraded: searxng: its last call failed") {
		t.Fatalf("after a failed search: %+v", r)
	}
	for _, q := range []string{"q2", "q3"} {
		_, _ = gw.CallTool(ctx, "web_search", []byte(`{"query":"`+q+`"}`), contract.CallContext{})
	}
	if r := gw.Readiness(ctx); !r.Ready || !strings.HasPrefix(r.Services["search"], "unavailable: every configured provider is skipped: searxng: circuit open after 3 failures") {
		t.Fatalf("after three: %+v", r)
	}
}

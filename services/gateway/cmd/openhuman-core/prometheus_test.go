package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/testbuf"
)

// startServe runs `openhuman-core serve` on a free port and returns its URL.
func startServe(t *testing.T, home string, extraEnv ...string) string {
	t.Helper()
	return startServeOn(t, home, "127.0.0.1:0", extraEnv...)
}

// startServeOn is startServe on addr; the URL it returns is the one serve
// prints, such as http://[::]:41234.
func startServeOn(t *testing.T, home, addr string, extraEnv ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "openhuman-core"), "serve", "--addr", addr)
	cmd.Env = testEnv(home, extraEnv...)
	u, _ := serveURL(t, cmd)
	return u
}

// serveURL starts cmd, a `serve`, and returns the URL it prints and what
// it writes to stderr.
func serveURL(t *testing.T, cmd *exec.Cmd) (string, *testbuf.Buffer) {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := startProcess(t, cmd, "serve")
	line := make([]byte, 512)
	n, err := stdout.Read(line)
	if err != nil {
		t.Fatalf("serve printed nothing: %v\n%s", err, stderr.String())
	}
	u := regexp.MustCompile(`http://(\[[0-9a-f:]*\]|[0-9.]+):\d+`).FindString(string(line[:n]))
	if u == "" {
		t.Fatalf("serve did not say where it listens: %q", line[:n])
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return u, stderr
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestPrometheusScrapesPerToolSeries starts the real Prometheus server,
// lets it scrape `serve` while tools are called over /rpc and /mcp, and asks
// Prometheus's API for per-tool rates and p95 latencies, and for every
// query of the Grafana dashboard.
func TestPrometheusScrapesPerToolSeries(t *testing.T) {
	promBin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("OPENHUMAN_TEST_PROMETHEUS") != "" {
			t.Fatal("OPENHUMAN_TEST_PROMETHEUS is set but prometheus is not installed (apt-get install prometheus)")
		}
		t.Skip("prometheus is not installed; .ci/run installs it")
	}
	// SearXNG with its default settings (json off) and Brave behind it, so
	// the search panels have fallbacks, provider states and cache hits.
	web := newWebFakes(t)
	web.searxngMode.Store("json-off")
	gw := startServe(t, t.TempDir(), web.env()...)
	dir := t.TempDir()
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: openhuman-core\n    static_configs:\n      - targets: [%q]\n", strings.TrimPrefix(gw, "http://"))
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	promAddr := freePort(t)
	prom := exec.Command(promBin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+promAddr, "--log.level=warn")
	promLog := startProcess(t, prom, "prometheus")
	waitFor(t, 30*time.Second, func() bool {
		resp, err := http.Get("http://" + promAddr + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}, func() string { return promLog.String() })

	query := func(q string) []map[string]any {
		resp, err := http.Get("http://" + promAddr + "/api/v1/query?query=" + url.QueryEscape(q))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Status string `json:"status"`
			Error  string `json:"error"`
			Data   struct {
				Result []map[string]any `json:"result"`
			} `json:"data"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Status != "success" {
			t.Fatalf("query %s: %v %s", q, err, out.Error)
		}
		return out.Data.Result
	}
	has := func(results []map[string]any, labels map[string]string) bool {
		for _, r := range results {
			m := r["metric"].(map[string]any)
			match := true
			for k, v := range labels {
				match = match && m[k] == v
			}
			val := r["value"].([]any)[1].(string)
			if match && val != "NaN" && val != "0" {
				return true
			}
		}
		return false
	}
	// Learns and fetches over both HTTP transports, and searches, go on
	// until Prometheus shows per-tool rates for them. Its first scrape
	// comes five to six seconds after it is ready (its discovery and scrape
	// managers act on five-second tickers), later on a busy machine, and a
	// rate needs two scrapes with calls between them: traffic of a fixed
	// length can end before the second one.
	sid := mcpHTTPSession(t, gw)
	rates := func() bool {
		r := query(`sum by (tool, transport) (rate(openhuman_tool_calls_total[5s]))`)
		return has(r, map[string]string{"tool": "memory.fetch", "transport": "json_rpc"}) &&
			has(r, map[string]string{"tool": "memory.fetch", "transport": "mcp_http"})
	}
	deadline := time.Now().Add(90 * time.Second)
	for i := 0; !rates(); i++ {
		if time.Now().After(deadline) {
			t.Fatalf("no per-tool rate series after %d rounds of calls in 90s\n%s", i, promLog.String())
		}
		rpcCall(t, gw, "openhuman.memory_learn", fmt.Sprintf(`{"text":"metric note %d"}`, i))
		rpcCall(t, gw, "openhuman.memory_fetch", `{"query":"metric note"}`)
		mcpHTTPCall(t, gw, sid, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory.fetch","arguments":{"query":"metric"}}}`)
		rpcCall(t, gw, "openhuman.tools_web_search", fmt.Sprintf(`{"query":"metric search %d"}`, i%5))
		time.Sleep(20 * time.Millisecond)
	}
	p95 := query(`histogram_quantile(0.95, sum by (le, tool) (rate(openhuman_tool_call_duration_seconds_bucket[30s])))`)
	if !has(p95, map[string]string{"tool": "memory.fetch"}) || !has(p95, map[string]string{"tool": "memory.learn"}) {
		t.Errorf("no p95 series per tool: %v", p95)
	}
	if !has(query(`openhuman_memory_items{kind="learning"}`), nil) {
		t.Error("memory size is not scraped")
	}

	// Every query of the shipped dashboard must run and return data.
	dash, err := os.ReadFile("../../../../deploy/grafana/openhuman-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var board struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(dash, &board); err != nil {
		t.Fatal(err)
	}
	for _, p := range board.Panels {
		for _, tg := range p.Targets {
			results := query(strings.ReplaceAll(tg.Expr, "$__rate_interval", "30s"))
			if len(results) == 0 {
				t.Errorf("panel %q: %s returned nothing", p.Title, tg.Expr)
			}
		}
	}
}

func waitFor(t *testing.T, d time.Duration, ok func() bool, why func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %s: %s", d, why())
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func rpcCall(t *testing.T, base, method, params string) {
	t.Helper()
	resp, err := http.Post(base+"/rpc", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"result"`) {
		t.Fatalf("%s: %s", method, b)
	}
}

func mcpHTTPSession(t *testing.T, base string) string {
	t.Helper()
	resp := mcpHTTPCall(t, base, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"prom-test"}}}`)
	return resp.Header.Get("Mcp-Session-Id")
}

func mcpHTTPCall(t *testing.T, base, sid, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("MCP over HTTP: %d", resp.StatusCode)
	}
	return resp
}

// TestDeployFiles checks the shipped Prometheus configurations with promtool.
func TestDeployFiles(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("OPENHUMAN_TEST_PROMETHEUS") != "" {
			t.Fatal("promtool is not installed (apt-get install prometheus)")
		}
		t.Skip("promtool is not installed")
	}
	for _, f := range []string{"prometheus.yml", "compose.yml"} {
		out, err := exec.Command(promtool, "check", "config", "../../../../deploy/prometheus/"+f).CombinedOutput()
		if err != nil {
			t.Fatalf("promtool %s: %v\n%s", f, err, out)
		}
	}
}

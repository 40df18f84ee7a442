package deploy

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The container tests run against the stack `make up-local` started
// (scripts/compose-local.sh test, which make test-compose runs, sets the
// variables). Each scenario is a subtest of TestStack that leaves the stack
// as it found it: every service running and the gateway ready. A new
// scenario is one more function in the list, using stack's helpers
// (containers_test.go); replication_test.go has those of replicated memory.

// stack is the running local stack.
type stack struct {
	t     *testing.T
	url   string // the gateway, http://127.0.0.1:9300
	token string
}

func TestStack(t *testing.T) {
	if os.Getenv("OPENHUMAN_TEST_COMPOSE") != "1" {
		t.Skip("OPENHUMAN_TEST_COMPOSE=1 runs the container tests against the stack of make up-local (make test-compose)")
	}
	s := &stack{t: t, url: os.Getenv("OPENHUMAN_GATEWAY_URL"), token: os.Getenv("OPENHUMAN_API_TOKEN")}
	if s.url == "" || s.token == "" {
		t.Fatal("OPENHUMAN_GATEWAY_URL and OPENHUMAN_API_TOKEN must be set (scripts/compose-local.sh test sets them)")
	}
	s.waitReady(60 * time.Second)
	for _, sc := range []struct {
		name string
		run  func(*stack, *testing.T)
	}{
		{"learn fetch recall search", (*stack).learnFetchRecallSearch},
		{"where the token is and what Prometheus holds", (*stack).tokenAdviceAndPrometheus},
		{"a tool call is one trace in Jaeger", (*stack).oneTraceInJaeger},
		{"redis stopped and started", (*stack).redisOutage},
		{"memory replica killed during a burst", (*stack).memoryReplicaKilled},
		{"NATS server stopped during writes", (*stack).natsServerStopped},
		{"memory replica partitioned", (*stack).memoryReplicaPartitioned},
		{"forget reaches every copy", (*stack).forgetEverywhere},
		{"down and up keeps memory", (*stack).downUpKeepsMemory},
		{"restore from one backup onto fresh volumes", (*stack).restoreFromOneBackup},
	} {
		t.Run(sc.name, func(t *testing.T) {
			start := time.Now()
			sc.run(s, t)
			t.Logf("%s took %s", sc.name, time.Since(start).Round(100*time.Millisecond))
		})
	}
}

// compose runs a compose command on the stack.
func (s *stack) compose(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("../scripts/compose-local.sh", append([]string{"compose"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("compose %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// start brings the stack up again and waits for the gateway.
func (s *stack) start(t *testing.T) {
	t.Helper()
	out, err := exec.Command("../scripts/compose-local.sh", "start").CombinedOutput()
	if err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	s.waitReady(60 * time.Second)
}

func (s *stack) waitReady(within time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for {
		resp, err := http.Get(s.url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s/readyz not 200 within %s (%v)", s.url, within, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// bearer adds the token to every request of the MCP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// session is an MCP session over Streamable HTTP, as a remote client opens.
func (s *stack) session(t *testing.T, ctx context.Context) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "compose-test", Version: "1.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{s.token}, Timeout: 60 * time.Second}}, nil)
	if err != nil {
		t.Fatalf("MCP session: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call calls a tool and decodes its structured result into out.
func call(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any, out any) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s failed: %v", tool, res.Content[0].(*mcp.TextContent).Text)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v in %s", tool, err, b)
	}
}

type fetched struct {
	Hits []struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	} `json:"hits"`
}

type webPage struct {
	Provider string `json:"provider"`
	Cached   bool   `json:"cached"`
	Results  []struct {
		URL   string `json:"url"`
		Title string `json:"title"`
	} `json:"results"`
}

// A wrong token is told where the stack's token came from (the file
// make up-local named), and Prometheus, which the stack does not publish,
// answers queries through scripts/compose-local.sh query with the
// gateway's metrics scraped.
func (s *stack) tokenAdviceAndPrometheus(t *testing.T) {
	from := os.Getenv("OPENHUMAN_API_TOKEN_FROM")
	if from == "" {
		t.Fatal("OPENHUMAN_API_TOKEN_FROM is not set (scripts/compose-local.sh test sets it)")
	}
	req, _ := http.NewRequest(http.MethodPost, s.url+"/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_items_list","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer oh_not-the-token-of-this-stack")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var e struct{ Error struct{ Message string } }
	err = json.NewDecoder(resp.Body).Decode(&e)
	resp.Body.Close()
	if want := "send the value of OPENHUMAN_API_TOKEN " + from; err != nil || resp.StatusCode != http.StatusUnauthorized || !strings.Contains(e.Error.Message, want) {
		t.Errorf("a wrong token: %d %q (%v), want 401 saying %q", resp.StatusCode, e.Error.Message, err, want)
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		out, err := exec.Command("../scripts/compose-local.sh", "query", `up{job="openhuman-core"}`).Output()
		if err != nil {
			t.Fatalf("query: %v", err)
		}
		if strings.Contains(string(out), `"status":"success"`) && strings.Contains(string(out), `"value":[`) && strings.Contains(string(out), `"1"]`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus has not scraped the gateway within 90s: %s", out)
		}
		time.Sleep(2 * time.Second)
	}
}

// fact is what learnFetchRecallSearch stores and downUpKeepsMemory finds.
const fact = "The compose stack keeps the staging database password in the vault, never in the repository."

func (s *stack) learnFetchRecallSearch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := s.session(t, ctx)
	var learned struct {
		ID string `json:"id"`
	}
	call(t, ctx, cs, "memory.learn", map[string]any{"text": fact, "kind": "fact"}, &learned)
	// Two memory replicas serve in one queue group: several reads land on
	// both.
	for i := range 6 {
		var f fetched
		call(t, ctx, cs, "memory.fetch", map[string]any{"query": "staging database password vault"}, &f)
		if len(f.Hits) == 0 || f.Hits[0].ID != learned.ID {
			t.Fatalf("fetch #%d after learn: %+v, want %s first", i, f, learned.ID)
		}
	}
	var recalled struct {
		Citations []struct {
			ID string `json:"id"`
		} `json:"citations"`
	}
	call(t, ctx, cs, "memory.recall", map[string]any{"question": "Where is the staging database password kept?"}, &recalled)
	if len(recalled.Citations) == 0 || recalled.Citations[0].ID != learned.ID {
		t.Errorf("recall: %+v, want %s cited", recalled, learned.ID)
	}
	var page webPage
	call(t, ctx, cs, "web_search", map[string]any{"query": "compose healthchecks " + strconv.FormatInt(time.Now().UnixNano(), 36)}, &page)
	if page.Provider != "searxng" || len(page.Results) == 0 || !strings.HasPrefix(page.Results[0].Title, "compose healthchecks") {
		t.Errorf("web_search: %+v, want the SearXNG stand-in's results for the query", page)
	}
}

// metric sums the samples of a metric on a service's /metrics whose labels
// contain every one of labels, read inside the stack's network (no port
// but the gateway's is published).
func (s *stack) metric(t *testing.T, service, port, name string, labels ...string) float64 {
	t.Helper()
	body := s.scrape(t, service, port)
	var sum float64
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
lines:
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		for _, l := range labels {
			if !strings.Contains(line, l) {
				continue lines
			}
		}
		v, err := strconv.ParseFloat(line[strings.LastIndex(line, " ")+1:], 64)
		if err == nil {
			sum += v
		}
	}
	return sum
}

// scrape reads http://service:port/metrics from the prometheus container,
// whose busybox wget is on the stack's network.
func (s *stack) scrape(t *testing.T, service, port string) string {
	t.Helper()
	out, err := exec.Command("../scripts/compose-local.sh", "compose", "exec", "-T", "prometheus",
		"wget", "-q", "-O", "-", fmt.Sprintf("http://%s:%s/metrics", service, port)).Output()
	if err != nil {
		t.Fatalf("scraping %s: %v", service, err)
	}
	return string(out)
}

// With Redis stopped, search and memory keep answering, and search's
// metrics count the cache errors; with Redis back, the cache is used again.
func (s *stack) redisOutage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs := s.session(t, ctx)
	cacheErrors := func() float64 {
		return s.metric(t, "search", "9303", "openhuman_search_cache_total", `result="error"`)
	}
	cacheHits := func() float64 { return s.metric(t, "search", "9303", "openhuman_search_cache_total", `result="hit"`) }
	errorsBefore := cacheErrors()

	s.compose(t, "stop", "redis")
	restarted := false
	defer func() {
		if !restarted {
			s.compose(t, "start", "redis")
		}
	}()
	query := "redis outage " + strconv.FormatInt(time.Now().UnixNano(), 36)
	var page webPage
	call(t, ctx, cs, "web_search", map[string]any{"query": query}, &page)
	if len(page.Results) == 0 || page.Cached {
		t.Errorf("web_search with Redis stopped: %+v, want fresh results", page)
	}
	var f fetched
	call(t, ctx, cs, "memory.fetch", map[string]any{"query": "staging database password"}, &f)
	if len(f.Hits) == 0 {
		t.Error("memory.fetch with Redis stopped found nothing")
	}
	if got := cacheErrors(); got <= errorsBefore {
		t.Errorf(`openhuman_search_cache_total{result="error"} %v with Redis stopped, was %v: the outage does not show`, got, errorsBefore)
	}

	s.compose(t, "start", "redis")
	restarted = true
	// redisconn skips Redis for a second after a failure; then a search is
	// cached in Redis and found there again.
	deadline := time.Now().Add(30 * time.Second)
	for {
		query := "redis back " + strconv.FormatInt(time.Now().UnixNano(), 36)
		hitsBefore, errorsBefore := cacheHits(), cacheErrors()
		var first, second webPage
		call(t, ctx, cs, "web_search", map[string]any{"query": query}, &first)
		call(t, ctx, cs, "web_search", map[string]any{"query": query}, &second)
		if second.Cached && cacheHits() > hitsBefore && cacheErrors() == errorsBefore {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30s after Redis started again the search cache is not used: second search %+v", second)
		}
		time.Sleep(time.Second)
	}
}

// What was learned is still there after the stack is taken down (volumes
// kept) and started again, on each memory replica: each answers alone in
// turn.
func (s *stack) downUpKeepsMemory(t *testing.T) {
	s.compose(t, "down")
	s.start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs := s.session(t, ctx)
	for _, r := range []struct{ alone, stopped string }{{"memory-1", "memory-2"}, {"memory-2", "memory-1"}} {
		s.compose(t, "stop", r.stopped)
		var f fetched
		call(t, ctx, cs, "memory.fetch", map[string]any{"query": "staging database password vault"}, &f)
		if len(f.Hits) == 0 || f.Hits[0].Text != fact {
			t.Errorf("after down and up, %s alone: %+v, want the fact learned before", r.alone, f)
		}
		s.compose(t, "start", r.stopped)
		s.waitHealthy(t, r.stopped, 2*time.Minute)
	}
	s.waitReady(time.Minute)
}

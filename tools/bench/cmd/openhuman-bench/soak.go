package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A soak drives mixed traffic through /rpc and /mcp for a long time and
// checks that the server ends the way it started: no errors, and memory,
// goroutines and tail latency that do not keep growing. A leak shows as
// growth over minutes that a five-second benchmark never sees.
//
// Writes are balanced by forgets, so the memory holds about as many items at
// the end as at the start and growth means a leak, not more data.

// soakBounds are the limits a soak is held to; growth beyond them fails it.
type soakBounds struct {
	rssFactor    float64 // end RSS ≤ start RSS × rssFactor + rssSlack
	rssSlack     int64
	goroutines   float64 // end ≤ start + goroutines
	p99Factor    float64 // last window's p99 ≤ first's × p99Factor + p99Slack
	p99Slack     time.Duration
	maxErrorRate float64
}

var defaultBounds = soakBounds{rssFactor: 1.25, rssSlack: 32 << 20, goroutines: 25, p99Factor: 3, p99Slack: 10 * time.Millisecond}

// soakSample is the server's state at one moment, read from its /metrics.
type soakSample struct {
	at         time.Duration
	rss        float64
	goroutines float64
}

type soakStats struct {
	mu       sync.Mutex
	start    time.Time
	byOp     map[string]*opStats
	windows  [][]time.Duration // latencies per window of soakWindow
	errors   []string          // the first few distinct errors
	errCount int
	calls    int
}

type opStats struct {
	calls, errors int
	latencies     []time.Duration
}

const soakWindow = 10 * time.Second

func (s *soakStats) record(op string, d time.Duration, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.byOp[op]
	if o == nil {
		o = &opStats{}
		s.byOp[op] = o
	}
	o.calls++
	o.latencies = append(o.latencies, d)
	s.calls++
	w := int(time.Since(s.start) / soakWindow)
	for len(s.windows) <= w {
		s.windows = append(s.windows, nil)
	}
	s.windows[w] = append(s.windows[w], d)
	if err != nil {
		o.errors++
		s.errCount++
		msg := op + ": " + err.Error()
		if len(s.errors) < 5 && !slices.Contains(s.errors, msg) {
			s.errors = append(s.errors, msg)
		}
	}
}

// soak runs the soak against o.url with clients concurrent clients and
// writes its report; it fails when a bound is broken.
func soak(ctx context.Context, client *http.Client, o options, clients int, stdout io.Writer) error {
	st := &soakStats{start: time.Now(), byOp: map[string]*opStats{}}
	ctx, cancel := context.WithTimeout(ctx, o.soak)
	defer cancel()

	var samples []soakSample
	sample := func() error {
		rss, gor, err := serverGauges(ctx, client, o.url)
		if err != nil {
			return err
		}
		samples = append(samples, soakSample{at: time.Since(st.start), rss: rss, goroutines: gor})
		return nil
	}
	if err := sample(); err != nil {
		return err
	}

	var wg sync.WaitGroup
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			soakClient(ctx, client, o, w, st)
		}()
	}
	tick := time.NewTicker(soakWindow)
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-tick.C:
			if err := sample(); err != nil && ctx.Err() == nil {
				fmt.Fprintln(o.stderr, "openhuman-bench: reading /metrics:", err)
			}
		}
	}
	tick.Stop()
	wg.Wait()
	// The last sample is taken once the load has stopped and settled, as
	// an operator would read the server after a busy spell.
	final, cancelFinal := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancelFinal()
	time.Sleep(time.Second)
	if rss, gor, err := serverGauges(final, client, o.url); err == nil {
		samples = append(samples, soakSample{at: time.Since(st.start), rss: rss, goroutines: gor})
	}
	return st.report(stdout, samples, o.soak, clients, defaultBounds)
}

// soakClient is one client: JSON-RPC calls and an MCP session of its own,
// which it ends and opens again every 50 MCP calls.
func soakClient(ctx context.Context, client *http.Client, o options, w int, st *soakStats) {
	c := &soaker{ctx: ctx, client: client, url: o.url, w: w, st: st}
	r := rand.New(rand.NewSource(int64(w) + 100))
	qs := queries()
	for i := 0; ctx.Err() == nil; i++ {
		c.step(r, i, qs[r.Intn(len(qs))])
	}
	c.cleanUp()
}

// soaker is one soak client's state.
type soaker struct {
	ctx      context.Context
	client   *http.Client
	url      string
	w        int // the client's number
	st       *soakStats
	learned  []string    // ids learned and not forgotten yet
	mcp      http.Header // the MCP session's headers; nil when none is open
	mcpCalls int
}

// step makes one call, picked at random in the soak's mix, about q.
func (c *soaker) step(r *rand.Rand, i int, q string) {
	switch p := r.Intn(100); {
	case p < 30:
		_, _ = c.rpc("rpc memory.fetch", "openhuman.memory_fetch", map[string]any{"query": q, "limit": 10})
	case p < 38:
		_, _ = c.rpc("rpc memory.recall", "openhuman.memory_recall", map[string]any{"question": "what about " + q + "?"})
	case p < 43:
		_, _ = c.rpc("rpc memory.list", "openhuman.memory_items_list", map[string]any{"limit": 20})
	case p < 55:
		c.learn(fmt.Sprintf("Soak %d-%d: %s", c.w, i, note(r, i)))
	case p < 80:
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i, "method": "tools/call",
			"params": map[string]any{"name": "memory.fetch", "arguments": map[string]any{"query": q, "limit": 10}}})
		c.mcpCall("mcp memory.fetch", body)
	case p < 85:
		c.mcpCall("mcp tools/list", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	case p < 92:
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i, "method": "tools/call",
			"params": map[string]any{"name": "memory.recall", "arguments": map[string]any{"question": "anything on " + q + "?"}}})
		c.mcpCall("mcp memory.recall", body)
	default:
		_, _ = c.rpc("rpc tool_registry.list", "openhuman.tool_registry_list", map[string]any{})
	}
}

// learn stores text, and forgets the ten oldest of its notes once it holds
// more than 50, so the soak's memory stays about the same size.
func (c *soaker) learn(text string) {
	raw, err := c.rpc("rpc memory.learn", "openhuman.memory_learn", map[string]any{"text": text})
	var res struct {
		ID string `json:"id"`
	}
	if err == nil && json.Unmarshal(raw, &res) == nil && res.ID != "" {
		c.learned = append(c.learned, res.ID)
	}
	if len(c.learned) > 50 {
		raw, err := c.rpc("rpc memory.forget", "openhuman.memory_forget", map[string]any{"ids": c.learned[:10]})
		if err == nil && !bytes.Contains(raw, []byte(`"forgotten":10`)) {
			c.st.record("rpc memory.forget", 0, fmt.Errorf("forgot fewer than asked: %.200s", raw))
		}
		c.learned = c.learned[10:]
	}
}

// record counts a call unless the soak is over: a call cut short by its
// end is no failure of the server.
func (c *soaker) record(op string, took time.Duration, err error) {
	if c.ctx.Err() == nil {
		c.st.record(op, took, err)
	}
}

// rpc makes one JSON-RPC call and records it as op.
func (c *soaker) rpc(op, method string, params any) (json.RawMessage, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	t := time.Now()
	resp, err := post(c.ctx, c.client, c.url+"/rpc", body, nil)
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err == nil {
		if jerr := json.Unmarshal(resp, &out); jerr != nil {
			err = fmt.Errorf("not JSON: %.200s", resp)
		} else if out.Error != nil {
			err = errors.New(out.Error.Message)
		}
	}
	c.record(op, time.Since(t), err)
	return out.Result, err
}

// mcpCall sends body in the client's MCP session, opening one first when
// none is open or the last has had its 50 calls.
func (c *soaker) mcpCall(op string, body []byte) {
	if c.mcp == nil || c.mcpCalls%50 == 0 {
		if c.mcp != nil {
			t := time.Now()
			err := deleteSession(c.ctx, c.client, c.url, c.mcp)
			c.record("mcp session end", time.Since(t), err)
		}
		c.mcp = http.Header{"Accept": {"application/json, text/event-stream"}}
		t := time.Now()
		err := openSession(c.ctx, c.client, c.url, c.mcp)
		c.record("mcp session open", time.Since(t), err)
		if err != nil {
			c.mcp = nil
			return
		}
	}
	c.mcpCalls++
	t := time.Now()
	resp, err := post(c.ctx, c.client, c.url+"/mcp", body, c.mcp)
	if err == nil && (!bytes.Contains(resp, []byte(`"result"`)) || bytes.Contains(resp, []byte(`"isError":true`))) {
		err = fmt.Errorf("%.200s", resp)
	}
	c.record(op, time.Since(t), err)
}

// cleanUp forgets what the client learned and still holds, and ends its
// session, so a soak against a long-lived server leaves it as it found it.
func (c *soaker) cleanUp() {
	if len(c.learned) > 0 {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "openhuman.memory_forget", "params": map[string]any{"ids": c.learned}})
		cleanup, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, _ = post(cleanup, c.client, c.url+"/rpc", body, nil)
		cancel()
	}
	if c.mcp != nil {
		cleanup, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = deleteSession(cleanup, c.client, c.url, c.mcp)
		cancel()
	}
}

func openSession(ctx context.Context, client *http.Client, base string, headers http.Header) error {
	init := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"openhuman-soak"}}}`)
	if _, err := post(ctx, client, base+"/mcp", init, headers); err != nil {
		return err
	}
	if headers.Get("Mcp-Session-Id") == "" {
		return errors.New("initialize over /mcp returned no Mcp-Session-Id")
	}
	_, err := post(ctx, client, base+"/mcp", []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), headers)
	return err
}

func deleteSession(ctx context.Context, client *http.Client, base string, headers http.Header) error {
	return expect(ctx, client, http.MethodDelete, base, "/mcp", headers, http.StatusNoContent)
}

// expect sends a bodiless request to base+path and fails unless it
// answers status; the body is read and dropped so the connection is reused.
func expect(ctx context.Context, client *http.Client, method, base, path string, headers http.Header, status int) error {
	req, err := http.NewRequestWithContext(ctx, method, base+path, nil)
	if err != nil {
		return err
	}
	if headers != nil {
		req.Header = headers.Clone()
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != status {
		return fmt.Errorf("%s %s: HTTP %d", method, path, resp.StatusCode)
	}
	return nil
}

// serverGauges reads the server's resident memory and goroutine count from
// its /metrics (the Go and process collectors every binary registers), so a
// soak of a server on another host measures it too.
func serverGauges(ctx context.Context, client *http.Client, base string) (rss, goroutines float64, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return 0, 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("GET /metrics: HTTP %d", resp.StatusCode)
	}
	found := 0
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		switch name {
		case "process_resident_memory_bytes":
			rss, err = strconv.ParseFloat(value, 64)
			found++
		case "go_goroutines":
			goroutines, err = strconv.ParseFloat(value, 64)
			found++
		}
		if err != nil {
			return 0, 0, fmt.Errorf("/metrics: %s: %w", name, err)
		}
	}
	if found != 2 {
		return 0, 0, errors.New("/metrics has no process_resident_memory_bytes or go_goroutines")
	}
	return rss, goroutines, sc.Err()
}

func (s *soakStats) report(w io.Writer, samples []soakSample, d time.Duration, clients int, b soakBounds) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(w, "soak: %s, %d clients, mixed /rpc and /mcp traffic\n\n", d, clients)
	fmt.Fprintln(w, "| call | calls | errors | p50 | p99 |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: |")
	ops := make([]string, 0, len(s.byOp))
	for op := range s.byOp {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	var all []time.Duration
	for _, op := range ops {
		o := s.byOp[op]
		all = append(all, o.latencies...)
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s |\n", op, o.calls, o.errors, round(percentile(o.latencies, 0.5)), round(percentile(o.latencies, 0.99)))
	}
	fmt.Fprintf(w, "| all | %d | %d | %s | %s |\n\n", s.calls, s.errCount, round(percentile(all, 0.5)), round(percentile(all, 0.99)))

	var failed []string
	rate := 0.0
	if s.calls > 0 {
		rate = float64(s.errCount) / float64(s.calls)
	}
	if s.calls == 0 {
		failed = append(failed, "no call was made")
	}
	if rate > b.maxErrorRate {
		failed = append(failed, fmt.Sprintf("error rate %.4f%% is over %.4f%%", rate*100, b.maxErrorRate*100))
	}
	fmt.Fprintln(w, "| measure | start | end | bound |")
	fmt.Fprintln(w, "| --- | ---: | ---: | --- |")
	fmt.Fprintf(w, "| error rate | | %.4f%% | ≤ %.4f%% |\n", rate*100, b.maxErrorRate*100)
	if len(s.windows) >= 3 {
		// The first window warms caches and the last is cut short by the
		// end of the run, so the second and the second to last compare.
		first, last := s.windows[1], s.windows[len(s.windows)-2]
		p1, p2 := percentile(first, 0.99), percentile(last, 0.99)
		limit := time.Duration(float64(p1)*b.p99Factor) + b.p99Slack
		fmt.Fprintf(w, "| p99 over %s | %s | %s | ≤ start × %.0f + %s |\n", soakWindow, round(p1), round(p2), b.p99Factor, round(b.p99Slack))
		if p2 > limit {
			failed = append(failed, fmt.Sprintf("p99 grew from %s to %s", round(p1), round(p2)))
		}
	}
	if len(samples) >= 2 {
		// The start is read after the first window, once caches, pools and
		// connections have been made; growth after that is what leaks.
		start := samples[min(1, len(samples)-2)]
		end := samples[len(samples)-1]
		rssLimit := start.rss*b.rssFactor + float64(b.rssSlack)
		gorLimit := start.goroutines + b.goroutines
		fmt.Fprintf(w, "| RSS | %.0f MiB | %.0f MiB | ≤ start × %.2f + %d MiB |\n", start.rss/(1<<20), end.rss/(1<<20), b.rssFactor, b.rssSlack>>20)
		fmt.Fprintf(w, "| goroutines | %.0f | %.0f | ≤ start + %.0f |\n", start.goroutines, end.goroutines, b.goroutines)
		if end.rss > rssLimit {
			failed = append(failed, fmt.Sprintf("RSS grew from %.0f MiB to %.0f MiB", start.rss/(1<<20), end.rss/(1<<20)))
		}
		if end.goroutines > gorLimit {
			failed = append(failed, fmt.Sprintf("goroutines grew from %.0f to %.0f", start.goroutines, end.goroutines))
		}
	}
	for _, e := range s.errors {
		fmt.Fprintln(w, "\nerror:", e)
	}
	if len(failed) > 0 {
		return errors.New("soak failed: " + strings.Join(failed, "; "))
	}
	fmt.Fprintln(w, "\nsoak passed")
	return nil
}

func percentile(lat []time.Duration, p float64) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

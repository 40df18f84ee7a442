package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSoak runs a short soak against a real server: every call answered,
// and the report reads the server's memory and goroutines from /metrics.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("builds openhuman-core and soaks it; make test-long runs it")
	}
	t.Setenv("PATH", buildCore(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out, errs bytes.Buffer
	if err := run(context.Background(), []string{"--soak", "4s", "--items", "50", "--concurrency", "3"}, &out, &errs); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out.String(), errs.String())
	}
	for _, want := range []string{"| rpc memory.learn |", "| mcp memory.fetch |", "| mcp session open |", "| RSS | ", "| goroutines | ", "| error rate | | 0.0000% |", "soak passed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
}

// TestSoakBounds holds the report to its bounds: each kind of growth, and
// any error, fails the soak; a steady run passes.
func TestSoakBounds(t *testing.T) {
	steady := func() *soakStats {
		st := &soakStats{start: time.Now(), byOp: map[string]*opStats{"rpc memory.fetch": {calls: 30, latencies: make([]time.Duration, 30)}}, calls: 30}
		for i := range 4 {
			st.windows = append(st.windows, []time.Duration{time.Millisecond, 2 * time.Millisecond, time.Duration(i+1) * time.Millisecond})
		}
		return st
	}
	samples := func(rss, gor float64) []soakSample {
		return []soakSample{{rss: 10 << 20, goroutines: 50}, {rss: 100 << 20, goroutines: 100}, {rss: rss, goroutines: gor}}
	}
	for _, c := range []struct {
		name    string
		st      *soakStats
		samples []soakSample
		fails   string
	}{
		{"steady", steady(), samples(110<<20, 110), ""},
		{"rss grows", steady(), samples(200<<20, 100), "RSS grew"},
		{"goroutines grow", steady(), samples(100<<20, 200), "goroutines grew"},
		{"p99 grows", func() *soakStats {
			st := steady()
			st.windows[2] = append(st.windows[2], time.Second)
			return st
		}(), samples(100<<20, 100), "p99 grew"},
		{"an error", func() *soakStats {
			st := steady()
			st.record("rpc memory.fetch", time.Millisecond, errors.New("boom"))
			return st
		}(), samples(100<<20, 100), "error rate"},
		{"no calls", &soakStats{start: time.Now(), byOp: map[string]*opStats{}}, samples(100<<20, 100), "no call was made"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			err := c.st.report(&out, c.samples, time.Minute, 1, defaultBounds)
			switch {
			case c.fails == "" && err != nil:
				t.Fatalf("failed: %v\n%s", err, out.String())
			case c.fails != "" && (err == nil || !strings.Contains(err.Error(), c.fails)):
				t.Fatalf("err %v, want %q\n%s", err, c.fails, out.String())
			}
		})
	}
}

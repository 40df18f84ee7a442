package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/memorymain"
)

const usageHead = `openhuman-bench: load on openhuman-core serve's /rpc and /mcp, with throughput,
latency percentiles and CPU time per call.

Usage:
  openhuman-bench [flags]

Flags:
`

const usageTail = `
Environment and ports: without --url it starts the openhuman-core next to it
(or on PATH) as "serve --addr 127.0.0.1:0", on a free port of 127.0.0.1, with
a fresh temporary OPENHUMAN_HOME and OPENHUMAN_LOG_LEVEL=warn; every other
OPENHUMAN_* variable (see openhuman-core --help) passes to it. The bench itself
reads none. Results go to stdout, progress and the server's logs to stderr.
`

type options struct {
	serverPID   int // the server this run started, whose CPU time it reports
	url         string
	home        string
	items       int
	concurrency []int
	duration    time.Duration
	transports  []string
	soak        time.Duration
	token       string
	replicas    []string // memory replicas' /metrics URLs, for replication lag
	stderr      io.Writer
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, done, err := parseOptions(args, stdout, stderr)
	if done || err != nil {
		return err
	}
	if o.url == "" {
		home, err := os.MkdirTemp("", "openhuman-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(home)
		stop, err := o.startOwn(ctx, home, stderr)
		if stop != nil {
			defer stop()
		}
		if err != nil {
			return err
		}
	}
	var transport http.RoundTripper = &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute}
	if o.token != "" {
		transport = bearer{token: o.token, next: transport}
	}
	client := &http.Client{Transport: transport}
	if o.soak > 0 {
		return soak(ctx, client, o, slices.Max(o.concurrency), stdout)
	}
	return measure(ctx, client, o, stdout)
}

// parseOptions reads the flags. done is true when they asked only for the
// usage or the version, which it has printed then.
func parseOptions(args []string, stdout, stderr io.Writer) (o options, done bool, err error) {
	fs := flag.NewFlagSet("openhuman-bench", flag.ContinueOnError)
	fs.StringVar(&o.url, "url", "", "base URL of a running openhuman-core serve; empty starts one with a fresh home")
	fs.StringVar(&o.home, "home", "", "with --url: the server's home, for the direct baseline (optional)")
	fs.IntVar(&o.items, "items", 10000, "items to store before measuring (only when starting its own server)")
	conc := fs.String("concurrency", "1,8,64", "concurrent clients, comma-separated")
	fs.DurationVar(&o.duration, "duration", 5*time.Second, "measuring time per transport and concurrency")
	tr := fs.String("transports", "rpc,mcp", "transports to drive: rpc, mcp; rpc-learn (memory.learn of a new note per call); and for the floor under them, rpc-nothing (a memory.fetch that matches nothing) and healthz")
	replicas := fs.String("replicas", "", "with rpc-learn: the /metrics URLs of every memory replica, comma-separated, to measure replication lag (reply → applied on all)")
	fs.DurationVar(&o.soak, "soak", 0, "instead of the benchmark, drive mixed /rpc and /mcp traffic this long and fail if errors, RSS, goroutines or p99 grow past their bounds")
	fs.StringVar(&o.token, "token", "", "bearer token sent with every request, for a server that requires one; default $OPENHUMAN_API_TOKEN, which keeps it out of ps")
	version := fs.Bool("version", false, "print the version and exit")
	fs.SetOutput(io.Discard) // usage goes to stdout when asked for, else to stderr
	if err := fs.Parse(args); err != nil {
		w := stderr
		if errors.Is(err, flag.ErrHelp) {
			w, err = stdout, nil
		}
		fs.SetOutput(w)
		fmt.Fprint(w, usageHead)
		fs.PrintDefaults()
		fmt.Fprint(w, usageTail)
		return o, true, err
	}
	if *version {
		fmt.Fprintln(stdout, "openhuman-bench", telemetry.Version)
		return o, true, nil
	}
	if o.token == "" {
		o.token = os.Getenv("OPENHUMAN_API_TOKEN")
	}
	o.stderr = stderr
	return o, false, o.readLists(fs, *conc, *tr, *replicas)
}

// readLists reads the comma-separated flags, and gives a soak its own
// defaults for the flags not set.
func (o *options) readLists(fs *flag.FlagSet, conc, tr, replicas string) error {
	for _, c := range strings.Split(conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			return fmt.Errorf("--concurrency %q: use positive whole numbers", conc)
		}
		o.concurrency = append(o.concurrency, n)
	}
	if o.soak > 0 {
		// A soak's memory stays about this size: its writes are forgotten
		// again. Ten thousand items would only make it start slower.
		explicit := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
		if !explicit["items"] {
			o.items = 2000
		}
		if !explicit["concurrency"] {
			o.concurrency = []int{8}
		}
	}
	for _, t := range strings.Split(tr, ",") {
		t = strings.TrimSpace(t)
		if paths[t] == "" {
			return fmt.Errorf("--transports: unknown transport %q: use rpc, mcp, rpc-learn, rpc-nothing or healthz", t)
		}
		o.transports = append(o.transports, t)
	}
	for _, u := range strings.Split(replicas, ",") {
		if u = strings.TrimSpace(u); u != "" {
			if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
				return fmt.Errorf("--replicas %q: give each replica's metrics URL, such as http://memory-1:9301/metrics", u)
			}
			o.replicas = append(o.replicas, u)
		}
	}
	return nil
}

// startOwn starts openhuman-core serve on home and stores o.items through
// it. stop, when not nil, stops the server, whatever err says.
func (o *options) startOwn(ctx context.Context, home string, stderr io.Writer) (stop func(), err error) {
	o.home = home
	url, pid, stop, err := startServe(home, stderr)
	if err != nil {
		return nil, err
	}
	o.serverPID = pid
	o.url = url
	fmt.Fprintf(stderr, "storing %d items through %s/rpc ...\n", o.items, url)
	return stop, seed(ctx, url, o.items)
}

// measure prints the table: the direct baseline when the home is known,
// then a row per transport and concurrency.
func measure(ctx context.Context, client *http.Client, o options, stdout io.Writer) error {
	if o.serverPID > 0 {
		fmt.Fprintf(stdout, "memory.fetch, %d items, %s per row\n\n", o.items, o.duration)
	} else {
		fmt.Fprintf(stdout, "%s, %s per row\n\n", o.url, o.duration)
	}
	fmt.Fprintln(stdout, "| path | clients | calls/s | p50 | p99 | errors | server CPU/call | bench CPU/call |")
	fmt.Fprintln(stdout, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	if o.home != "" {
		r, err := direct(ctx, filepath.Join(o.home, "memory.db"), o.duration)
		if err != nil {
			return fmt.Errorf("direct baseline: %w", err)
		}
		fmt.Fprintln(stdout, r.row("direct (memory domain, in process)", 1))
	}
	for _, t := range o.transports {
		for _, c := range o.concurrency {
			var probe *replicaProbe
			if t == "rpc-learn" && len(o.replicas) > 0 {
				probe = newReplicaProbe(o.replicas, &http.Client{Timeout: 2 * time.Second})
			}
			r, err := load(ctx, client, o.url, t, c, o.duration, o.serverPID, probe)
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, r.row(paths[t], c))
			if r.lag != "" {
				fmt.Fprintln(stdout, "\n"+r.lag+"\n")
			}
		}
	}
	return nil
}

// startServe runs the openhuman-core next to this binary (or on PATH).
func startServe(home string, stderr io.Writer) (string, int, func(), error) {
	bin := "openhuman-core"
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), "openhuman-core"); fileExists(p) {
			bin = p
		}
	}
	cmd := exec.Command(bin, "--home", home, "serve", "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "OPENHUMAN_LOG_LEVEL=warn")
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", 0, nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", 0, nil, fmt.Errorf("starting %s serve: %w (build it with make build)", bin, err)
	}
	stop := func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }
	line, err := bufio.NewReader(out).ReadString('\n')
	url := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(line)
	if err != nil || url == "" {
		stop()
		return "", 0, nil, fmt.Errorf("%s serve did not say where it listens: %q", bin, line)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return url, cmd.Process.Pid, stop, nil
}

// bearer sends the token with every request the bench makes.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

type result struct {
	calls, errors int
	elapsed       time.Duration
	latencies     []time.Duration
	// CPU time spent while measuring, by the server process and by this
	// one (the load generator shares the machine); 0 when unknown.
	serverCPU, benchCPU time.Duration
	lag                 string // with a replica probe: the writes' replication lag
}

func (r result) row(path string, clients int) string {
	pct := func(p float64) time.Duration { return percentile(r.latencies, p) }
	perCall := func(d time.Duration) string {
		if d <= 0 || r.calls == 0 {
			return "–"
		}
		return round(d / time.Duration(r.calls))
	}
	return fmt.Sprintf("| %s | %d | %.0f | %s | %s | %d | %s | %s |", path, clients, float64(r.calls)/r.elapsed.Seconds(),
		round(pct(0.50)), round(pct(0.99)), r.errors, perCall(r.serverCPU), perCall(r.benchCPU))
}

func round(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%d µs", d.Microseconds())
	}
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}

// direct runs the benchmark query on the memory domain in this process, on
// the server's own database file: the floor the gateway's overhead adds to.
func direct(ctx context.Context, path string, d time.Duration) (result, error) {
	svc, db, err := memorymain.OpenLocal(path)
	if err != nil {
		return result{}, err
	}
	defer db.Close()
	qs := queries()
	var res result
	cpu0 := selfCPU()
	start := time.Now()
	for i := 0; time.Since(start) < d; i++ {
		t := time.Now()
		if _, err := svc.Fetch(ctx, memory.FetchParams{Query: qs[i%len(qs)], Limit: 10}, contract.CallContext{}); err != nil {
			res.errors++
		}
		res.latencies = append(res.latencies, time.Since(t))
		res.calls++
	}
	res.elapsed = time.Since(start)
	res.benchCPU = selfCPU() - cpu0
	return res, nil
}

func load(ctx context.Context, client *http.Client, base, transport string, clients int, d time.Duration, serverPID int, probe *replicaProbe) (result, error) {
	qs := queries()
	var acks *ackLog
	var probeDone chan struct{}
	stopProbe := func() {}
	if probe != nil {
		acks = &ackLog{}
		pctx, cancel := context.WithCancel(ctx)
		probeDone = make(chan struct{})
		go func() { probe.run(pctx); close(probeDone) }()
		stopProbe = func() { cancel(); <-probeDone }
	}
	defer stopProbe()
	var (
		mu  sync.Mutex
		res result
		wg  sync.WaitGroup
	)
	deadline := time.Now().Add(d)
	server0, bench0 := processCPU(serverPID), selfCPU()
	start := time.Now()
	errc := make(chan error, clients)
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			call, err := caller(ctx, client, base, transport, acks)
			if err != nil {
				errc <- err
				return
			}
			var lat []time.Duration
			calls, errs := 0, 0
			for i := w; time.Now().Before(deadline) && ctx.Err() == nil; i += clients {
				t := time.Now()
				if err := call(qs[i%len(qs)]); err != nil {
					errs++
				}
				lat = append(lat, time.Since(t))
				calls++
			}
			mu.Lock()
			res.calls += calls
			res.errors += errs
			res.latencies = append(res.latencies, lat...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	if server0 > 0 {
		res.serverCPU = processCPU(serverPID) - server0
	}
	res.benchCPU = selfCPU() - bench0
	if probe != nil {
		// Let the replicas catch up with the last writes, for up to 10 s.
		var lags []time.Duration
		var missing int
		for wait := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			var err error
			if lags, missing, err = probe.lags(acks); err != nil {
				stopProbe()
				return res, err
			}
			if missing == 0 || time.Now().After(wait) {
				break
			}
		}
		stopProbe()
		res.lag = lagLine(lags, missing, len(probe.urls))
	}
	select {
	case err := <-errc:
		return res, err
	default:
	}
	return res, nil
}

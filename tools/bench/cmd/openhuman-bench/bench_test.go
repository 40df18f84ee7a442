package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestRun drives a real `openhuman-core serve` (built for the test) over
// every transport and reads the table it prints.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and loads openhuman-core for seconds; make test-long runs it")
	}
	t.Setenv("PATH", buildCore(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out, errs bytes.Buffer
	err := run(context.Background(), []string{"--items", "120", "--duration", "500ms", "--concurrency", "2",
		"--transports", "rpc,mcp,rpc-learn,rpc-nothing,healthz"}, &out, &errs)
	if err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) == 8 && cells[1] != "clients" && !strings.HasPrefix(cells[1], "-") {
			rows[cells[0]] = cells
		}
	}
	for _, path := range []string{"direct (memory domain, in process)", "POST /rpc", "POST /rpc, memory.learn", "POST /mcp", "POST /rpc, matching nothing", "GET /healthz"} {
		r := rows[path]
		if r == nil {
			t.Fatalf("no row for %s in\n%s", path, out.String())
		}
		if rate, _ := strconv.ParseFloat(r[2], 64); rate <= 0 || r[5] != "0" {
			t.Errorf("%s: %s calls/s, %s errors", path, r[2], r[5])
		}
		if r[7] == "–" {
			t.Errorf("%s: no CPU time for the load generator", path)
		}
	}
	if rows["POST /rpc"][6] == "–" {
		t.Error("POST /rpc: no CPU time for the server it started")
	}
}

var (
	coreOnce sync.Once
	coreDir  string
	coreErr  error
)

// buildCore builds openhuman-core once for the tests that start it, and
// returns its folder.
func buildCore(t *testing.T) string {
	coreOnce.Do(func() {
		coreDir, coreErr = os.MkdirTemp("", "openhuman-bench-test-")
		if coreErr != nil {
			return
		}
		build := exec.Command("go", "build", "-o", filepath.Join(coreDir, "openhuman-core"), "github.com/openhuman-go/openhuman-go/services/gateway/cmd/openhuman-core")
		build.Stderr = os.Stderr
		coreErr = build.Run()
	})
	if coreErr != nil {
		t.Fatal(coreErr)
	}
	return coreDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if coreDir != "" {
		os.RemoveAll(coreDir)
	}
	os.Exit(code)
}

func TestUnknownTransportRefusedBeforeWork(t *testing.T) {
	var out, errs bytes.Buffer
	err := run(context.Background(), []string{"--transports", "rpc,grpc"}, &out, &errs)
	if err == nil || !strings.Contains(err.Error(), `"grpc"`) || out.Len() > 0 {
		t.Fatalf("err %v, output %q", err, out.String())
	}
}

func TestStatCPU(t *testing.T) {
	// utime 250 and stime 50 ticks, behind a command name with spaces and
	// parentheses.
	fields := strings.Fields("S 1 1 1 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 1 1 1")
	line := "42 (my (odd) name) " + strings.Join(fields, " ")
	if got := statCPU([]byte(line)); got != 3*time.Second {
		t.Errorf("statCPU = %v, want 3s", got)
	}
	if got := statCPU([]byte("garbage")); got != 0 {
		t.Errorf("statCPU(garbage) = %v", got)
	}
	// Spin until the kernel's own account (getrusage) says this process
	// used 100 ms more CPU, however long a busy machine makes that take,
	// then check /proc says about as much.
	before, ruBefore := selfCPU(), rusageCPU(t)
	for deadline := time.Now().Add(20 * time.Second); rusageCPU(t)-ruBefore < 100*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatal("could not spend 100 ms of CPU in 20 s")
		}
	}
	if after := selfCPU(); after-before < 50*time.Millisecond {
		t.Errorf("100 ms of CPU by getrusage counted as %v by /proc", after-before)
	}
	if processCPU(-1) != 0 || processCPU(1<<30) != 0 {
		t.Error("CPU time of a process that does not exist")
	}
}

func rusageCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestHelp(t *testing.T) {
	var out, errs bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, &out, &errs); err != nil || errs.Len() > 0 {
		t.Fatalf("err %v, stderr %q", err, errs.String())
	}
	for _, want := range []string{"Usage:", "-transports", "-url string", "OPENHUMAN_LOG_LEVEL", "127.0.0.1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--help does not name %s:\n%s", want, out.String())
		}
	}
}

func TestVersion(t *testing.T) {
	var out, errs bytes.Buffer
	if err := run(context.Background(), []string{"--version"}, &out, &errs); err != nil || !strings.HasPrefix(out.String(), "openhuman-bench ") {
		t.Fatalf("err %v, stdout %q, stderr %q", err, out.String(), errs.String())
	}
}

// A write's replication lag runs from its reply to the first poll at which
// every replica reports its seq; a replica that never does counts it as
// not seen.
func TestReplicaLag(t *testing.T) {
	var seq [2]atomic.Uint64
	var urls []string
	for i := range seq {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprintf(w, "# TYPE openhuman_memory_replication_applied_seq gauge\nopenhuman_memory_replication_applied_seq %d\n", seq[i].Load())
		}))
		defer srv.Close()
		urls = append(urls, srv.URL+"/metrics")
	}
	p := newReplicaProbe(urls, http.DefaultClient)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.run(ctx); close(done) }()
	acks := &ackLog{}
	seq[0].Store(1)
	acked := time.Now()
	acks.add(1, acked)
	time.Sleep(60 * time.Millisecond)
	seq[1].Store(1) // replica 2 applies write 1 about 60 ms after its reply
	acks.add(2, time.Now())
	seq[0].Store(2) // write 2 never reaches replica 2
	// The probe polls on its own clock, which a loaded machine (or the
	// race detector) slows: wait until it has seen the last state.
	for deadline := time.Now().Add(10 * time.Second); !probeSaw(p, 0, 2) || !probeSaw(p, 1, 1); {
		if time.Now().After(deadline) {
			t.Fatal("the probe never saw the replicas' last state")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	// No lag can be longer than the test ran; how much longer than 60 ms
	// depends on the machine's load.
	ran := time.Since(acked)
	lags, missing, err := p.lags(acks)
	if err != nil {
		t.Fatal(err)
	}
	if missing != 1 || len(lags) != 1 || lags[0] < 55*time.Millisecond || lags[0] > ran {
		t.Errorf("lags %v, %d not seen; want one of about 60 ms and one not seen", lags, missing)
	}
	if line := lagLine(lags, missing, 2); !strings.Contains(line, "not seen applied everywhere: 1") {
		t.Errorf("lag line %q", line)
	}
}

// probeSaw reports whether p has seen replica i at seq.
func probeSaw(p *replicaProbe, i int, seq uint64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	obs := p.seen[i]
	return len(obs) > 0 && obs[len(obs)-1].seq >= seq
}

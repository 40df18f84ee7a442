package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite/sqlitetest"
)

// failoverItems is how many items the shared memory holds: enough that a
// replica that has just started spends a second or more building its
// search indexes, during which its fetches are in flight.
const failoverItems = 60000

// rpcOutcome is one JSON-RPC call as a client saw it.
type rpcOutcome struct {
	method, text string
	start, end   time.Time
	code         string // "" on success, else the error's data.code
	message      string
}

func rpcTimed(base, method, params string) rpcOutcome {
	o := rpcOutcome{method: method, start: time.Now()}
	resp, err := http.Post(base+"/rpc", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
	if err != nil {
		o.end, o.code, o.message = time.Now(), "HTTP", err.Error()
		return o
	}
	defer resp.Body.Close()
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
			Data    struct {
				Code string `json:"code"`
			} `json:"data"`
		} `json:"error"`
	}
	err = json.NewDecoder(resp.Body).Decode(&out)
	o.end = time.Now()
	switch {
	case err != nil:
		o.code, o.message = "DECODE", err.Error()
	case out.Error != nil:
		o.code, o.message = out.Error.Data.Code, out.Error.Message
	}
	return o
}

// TestReplicaKilledMidCall runs two memory replicas as processes on one NATS
// server, with a gateway in front, and kills one with SIGKILL while it holds
// calls: each call ends once the replica's silence is noticed, not at its
// deadline, reads are answered by the other replica, and no learning is
// stored twice.
func TestReplicaKilledMidCall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs and kills memory replicas as processes; make test-long runs it")
	}
	ns, err := embedded.Start(embedded.Options{Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	url := ns.ClientURL()
	memHome := t.TempDir()
	sqlitetest.WriteItems(t, filepath.Join(memHome, "memory.db"), failoverItems)
	gw := startServe(t, t.TempDir(), "OPENHUMAN_NATS_URL="+url)

	// Replica b starts first and builds its indexes.
	cmdB := exec.Command(filepath.Join(binDir, "openhuman-memory"))
	cmdB.Env = testEnv(memHome, "OPENHUMAN_NATS_URL="+url, "OPENHUMAN_METRICS_ADDR=127.0.0.1:0", "OPENHUMAN_LOG_LEVEL=debug")
	logB := startProcess(t, cmdB, "memory replica b")
	waitFor(t, 2*time.Minute, func() bool { return strings.Contains(logB.String(), "search indexes built") },
		func() string { return "replica b never built its indexes:\n" + logB.String() })
	// A call through b teaches the gateway that memory heartbeats.
	if o := rpcTimed(gw, "openhuman.memory_fetch", `{"query":"deploy review"}`); o.code != "" {
		t.Fatalf("fetch through b: %+v", o)
	}

	// Replica a starts next: while it builds its indexes, the fetches it
	// takes are in flight.
	metricsA := freePort(t)
	cmdA := exec.Command(filepath.Join(binDir, "openhuman-memory"))
	cmdA.Env = testEnv(memHome, "OPENHUMAN_NATS_URL="+url, "OPENHUMAN_METRICS_ADDR="+metricsA)
	logA := startProcess(t, cmdA, "memory replica a")
	inFlight := `openhuman_service_requests_in_flight{service="memory"}`
	waitFor(t, time.Minute, func() bool { return strings.Contains(scrape(t, "http://"+metricsA+"/metrics"), inFlight) },
		func() string { return "replica a never registered:\n" + logA.String() })

	var (
		mu       sync.Mutex
		outcomes []rpcOutcome
		wg       sync.WaitGroup
		stop     = make(chan struct{})
	)
	for w := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var o rpcOutcome
				if (w+i)%3 == 0 {
					text := fmt.Sprintf("Failover learning %d-%d: replica a was killed mid-call.", w, i)
					o = rpcTimed(gw, "openhuman.memory_learn", `{"text":"`+text+`"}`)
					o.text = text
				} else {
					o = rpcTimed(gw, "openhuman.memory_fetch", fmt.Sprintf(`{"query":"deploy cluster %d review","limit":20}`, i%13))
				}
				mu.Lock()
				outcomes = append(outcomes, o)
				mu.Unlock()
			}
		}()
	}
	waitFor(t, time.Minute, func() bool { return metricValue(scrape(t, "http://"+metricsA+"/metrics"), inFlight) >= 3 },
		func() string { return "replica a never held 3 calls at once:\n" + logA.String() })
	if err := cmdA.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	time.Sleep(time.Second) // calls go on against the one replica left
	close(stop)
	wg.Wait()

	var before, retried int
	for _, o := range outcomes {
		if !o.start.Before(killed) {
			if o.code != "" {
				t.Errorf("%s sent after the kill failed: %s %s", o.method, o.code, o.message)
			}
			continue
		}
		before++
		// A call the dead replica held ends when its silence is noticed
		// (bus.ReplicaSilence, 1.5 s), not at its 30 s deadline; how soon
		// after that depends on the machine, so only the deadline bounds it
		// here (docs/operations.md has the measured figure).
		if took := o.end.Sub(killed); took > 10*time.Second {
			t.Errorf("%s ended %s after the kill: it waited for its deadline instead of noticing the replica was gone", o.method, took)
		}
		switch {
		case o.code == "":
		case o.method == "openhuman.memory_fetch":
			t.Errorf("a read in flight at the kill failed instead of going to the other replica: %s %s", o.code, o.message)
		case o.code != string(contract.CodeUnavailable):
			t.Errorf("%s failed with %s: %s", o.method, o.code, o.message)
		}
	}
	scraped := scrape(t, gw+"/metrics")
	for _, m := range []string{"fetch", "learn"} {
		retried += int(metricValue(scraped, `openhuman_bus_replica_lost_total{action="retried",method="`+m+`",service="memory"}`))
	}
	if before == 0 || retried == 0 {
		t.Fatalf("%d calls were sent before the kill and %d were sent again: the kill caught nothing in flight", before, retried)
	}
	t.Logf("%d calls in all, %d sent before the kill, %d sent again to the other replica", len(outcomes), before, retried)

	// Every learning acknowledged is stored exactly once.
	db, err := sql.Open("sqlite", filepath.Join(memHome, "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, o := range outcomes {
		if o.text == "" || o.code != "" {
			continue
		}
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM items WHERE text = ?`, o.text).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("%q is stored %d times", o.text, n)
		}
	}
}

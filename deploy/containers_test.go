package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Helpers of the container scenarios: containers by service, the gateway's
// /rpc, memory listed whole, and the tools image (memorystream) on the
// stack's internal network.

// backend is the compose network every service is on (internal in the
// local stack: only the gateway's port is published).
const backend = "openhuman-local_backend"

// docker runs a docker command and returns its standard output.
func docker(t *testing.T, args ...string) []byte {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command("docker", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}

// container is the id of a service's container.
func (s *stack) container(t *testing.T, service string) string {
	t.Helper()
	out, err := exec.Command("../scripts/compose-local.sh", "compose", "ps", "-q", service).Output()
	id := strings.TrimSpace(string(out))
	if err != nil || id == "" {
		t.Fatalf("no container of %s: %v", service, err)
	}
	return id
}

// waitHealthy waits until a service's container is running and healthy.
func (s *stack) waitHealthy(t *testing.T, service string, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	id := s.container(t, service)
	for {
		state := strings.TrimSpace(string(docker(t, "inspect", "-f", "{{.State.Status}} {{.State.Health.Status}}", id)))
		if state == "running healthy" {
			return time.Since(start)
		}
		if time.Since(start) > within {
			t.Fatalf("%s is %q after %s, not running and healthy", service, state, within)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// rpcError is a JSON-RPC error from the gateway.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%d %s %s", e.Code, e.Message, e.Data) }

var rpcClient = &http.Client{Timeout: 90 * time.Second,
	Transport: &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64}}

// rpc calls a method on the gateway's /rpc; a JSON-RPC error comes back
// as *rpcError, a transport failure as another error.
func (s *stack) rpc(ctx context.Context, method string, params, out any) error {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url+"/rpc", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := rpcClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var reply struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(b, &reply); err != nil {
		return fmt.Errorf("HTTP %d: %.300s", resp.StatusCode, b)
	}
	if reply.Error != nil {
		return reply.Error
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(reply.Result, out)
}

type learnResult struct {
	ID       string `json:"id"`
	Replayed bool   `json:"replayed"`
	Seq      uint64 `json:"seq"`
}

// writes keeps what a burst's clients learned: acknowledged texts and ids,
// and the calls that failed.
type writes struct {
	mu     sync.Mutex
	acked  map[string]string // text → id
	failed []string          // texts whose learn failed
	errs   map[string]int    // failure messages, counted
}

func newWrites() *writes { return &writes{acked: map[string]string{}, errs: map[string]int{}} }

// learn learns text through /rpc and records the outcome.
func (w *writes) learn(ctx context.Context, s *stack, text string) bool {
	var r learnResult
	err := s.rpc(ctx, "openhuman.memory_learn", map[string]any{"text": text, "kind": "fact"}, &r)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil || r.ID == "" {
		w.failed = append(w.failed, text)
		msg := fmt.Sprint(err)
		if len(msg) > 160 {
			msg = msg[:160]
		}
		w.errs[msg]++
		return false
	}
	w.acked[text] = r.ID
	return true
}

func (w *writes) count() (acked, failed int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.acked), len(w.failed)
}

// burst learns text(i) for i in [0, n) from clients concurrent clients,
// calling during once, on a client's goroutine while the others write,
// when acknowledged writes reach at, and stopping early once done (when
// not nil) says so or during fails. It returns during's error: the
// caller fails the test, which only its own goroutine may do.
func (s *stack) burst(ctx context.Context, w *writes, clients, n int, text func(int) string, at int, during func() error, done func() bool) error {
	next := make(chan int)
	var once sync.Once
	var wg sync.WaitGroup
	failed := make(chan error, 1)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				w.learn(ctx, s, text(i))
				if acked, _ := w.count(); during != nil && acked >= at {
					once.Do(func() {
						if err := during(); err != nil {
							failed <- err
						}
					})
				}
			}
		}()
	}
	var err error
feed:
	for i := range n {
		if ctx.Err() != nil || done != nil && done() {
			break
		}
		select {
		case next <- i:
		case err = <-failed:
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err == nil {
		select {
		case err = <-failed:
		default:
		}
	}
	return err
}

// run runs a command, its combined output in the error when it fails.
func run(name string, args ...string) error {
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// listed pages through memory.list over /rpc and counts the items whose
// text contains tag, by text. The gateway sends the newest write's seq
// with it, so the answering replica lists at least every acknowledged
// write.
func (s *stack) listed(ctx context.Context, tag string) (map[string]int, error) {
	counts := map[string]int{}
	cursor := ""
	for {
		var page struct {
			Items []struct {
				ID   string `json:"id"`
				Text string `json:"text"`
			} `json:"items"`
			NextCursor string `json:"next_cursor"`
		}
		params := map[string]any{"limit": 100}
		if cursor != "" {
			params["cursor"] = cursor
		}
		if err := s.rpc(ctx, "openhuman.memory_items_list", params, &page); err != nil {
			return nil, err
		}
		for _, it := range page.Items {
			if strings.Contains(it.Text, tag) {
				counts[it.Text]++
			}
		}
		if page.NextCursor == "" {
			return counts, nil
		}
		cursor = page.NextCursor
	}
}

// checkWrites lists memory and compares it with w: every acknowledged
// write present (lost counts those missing), none twice. It retries
// while a replica is not there yet (UNAVAILABLE), for up to within.
func (s *stack) checkWrites(t *testing.T, ctx context.Context, w *writes, tag string, within time.Duration) (lost, dups int, took time.Duration) {
	t.Helper()
	start := time.Now()
	var counts map[string]int
	for {
		var err error
		counts, err = s.listed(ctx, tag)
		if err == nil {
			break
		}
		if time.Since(start) > within {
			t.Fatalf("memory.list through the gateway still fails after %s: %v", within, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	took = time.Since(start)
	w.mu.Lock()
	defer w.mu.Unlock()
	for text := range w.acked {
		if counts[text] == 0 {
			lost++
			if lost <= 5 {
				t.Errorf("acknowledged write not listed: %q (id %s)", text, w.acked[text])
			}
		}
	}
	for text, n := range counts {
		if n > 1 {
			dups += n - 1
			t.Errorf("listed %d times: %q", n, text)
		}
	}
	return lost, dups, took
}

// streamReport is what memorystream prints.
type streamReport struct {
	Leader          string   `json:"leader"`
	Messages        uint64   `json:"messages"`
	LastSeq         uint64   `json:"last_seq"`
	Matches         []uint64 `json:"matches"`
	Snapshots       int      `json:"snapshots"`
	SnapshotMatches []string `json:"snapshot_matches"`
}

// stream reads the stream OPENHUMAN_MEMORY and its snapshots from a
// throwaway container of the tools image on the backend network, as the
// memory user, looking for text. The network is internal and no NATS port
// is published, so the reader goes to NATS rather than NATS to the test.
func (s *stack) stream(t *testing.T, text string) streamReport {
	t.Helper()
	out, err := exec.Command("../scripts/compose-local.sh", "tools", "memorystream", "-grep", text).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("memorystream: %v\n%s", err, stderr)
	}
	var r streamReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("memorystream: %v in %s", err, out)
	}
	return r
}

// homeHolds says whether any file in a service's /data (SQLite database,
// WAL and all) holds text, copied out of the container with docker cp.
func (s *stack) homeHolds(t *testing.T, service, text string) bool {
	t.Helper()
	return bytes.Contains(docker(t, "cp", s.container(t, service)+":/data", "-"), []byte(text))
}

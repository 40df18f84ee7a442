package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Writes and their replication. The rpc-learn transport learns a new note
// per call; with --replicas, each replica's
// openhuman_memory_replication_applied_seq is polled while it runs, and a
// write's replication lag is the time from its acknowledgement (the /rpc
// reply with its seq, as the bench receives it) to the first poll at which
// every replica reports that seq applied. The poll interval bounds the
// resolution, and a scrape costs the replicas a little CPU, so the rows
// with --replicas are slightly slower than without.

// pollEvery is how often each replica's /metrics is read.
const pollEvery = 5 * time.Millisecond

// learner returns a func learning one new note per call over /rpc. The
// texts are unique to this run, so no write is de-duplicated away.
func learner(ctx context.Context, client *http.Client, base string, acks *ackLog) func(string) error {
	r := rand.New(rand.NewSource(time.Now().UnixNano()))
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	n := 0
	return func(string) error {
		n++
		text := note(r, n)
		text = "Bench write " + run + "-" + strconv.Itoa(r.Int()) + text[strings.Index(text, ":"):]
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "openhuman.memory_learn", "params": map[string]any{"text": text}})
		resp, err := post(ctx, client, base+"/rpc", body, nil)
		if err != nil {
			return err
		}
		var reply struct {
			Result *struct {
				ID  string `json:"id"`
				Seq uint64 `json:"seq"`
			} `json:"result"`
		}
		if json.Unmarshal(resp, &reply) != nil || reply.Result == nil || reply.Result.ID == "" {
			return fmt.Errorf("%.200s", resp)
		}
		acks.add(reply.Result.Seq, time.Now())
		return nil
	}
}

// ackLog collects acknowledged writes: their seq and when the reply came.
type ackLog struct {
	mu   sync.Mutex
	seqs []uint64
	at   []time.Time
}

func (a *ackLog) add(seq uint64, at time.Time) {
	if a == nil || seq == 0 {
		return
	}
	a.mu.Lock()
	a.seqs = append(a.seqs, seq)
	a.at = append(a.at, at)
	a.mu.Unlock()
}

// observation is a replica's applied seq as one poll read it.
type observation struct {
	at  time.Time
	seq uint64
}

// replicaProbe polls every replica's applied seq until stopped.
type replicaProbe struct {
	urls   []string
	client *http.Client
	mu     sync.Mutex
	seen   [][]observation // per replica, the polls at which its seq rose
	errs   []error
}

func newReplicaProbe(urls []string, client *http.Client) *replicaProbe {
	return &replicaProbe{urls: urls, client: client, seen: make([][]observation, len(urls)), errs: make([]error, len(urls))}
}

// run polls until ctx ends.
func (p *replicaProbe) run(ctx context.Context) {
	var wg sync.WaitGroup
	for i, u := range p.urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var last uint64
			tick := time.NewTicker(pollEvery)
			defer tick.Stop()
			for {
				seq, err := appliedSeq(ctx, p.client, u)
				now := time.Now()
				p.mu.Lock()
				if err != nil && ctx.Err() == nil {
					p.errs[i] = err
				}
				if err == nil && seq > last {
					last = seq
					p.seen[i] = append(p.seen[i], observation{now, seq})
				}
				p.mu.Unlock()
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
			}
		}()
	}
	wg.Wait()
}

// lags returns, for each acknowledged write, the time until every replica
// reported it applied, and how many writes some replica never reported.
func (p *replicaProbe) lags(a *ackLog) ([]time.Duration, int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, err := range p.errs {
		if err != nil && len(p.seen[i]) == 0 {
			return nil, 0, fmt.Errorf("--replicas %s: %w", p.urls[i], err)
		}
	}
	var out []time.Duration
	missing := 0
	for k, seq := range a.seqs {
		var all time.Time
		for _, obs := range p.seen {
			j := sort.Search(len(obs), func(j int) bool { return obs[j].seq >= seq })
			if j == len(obs) {
				all = time.Time{}
				break
			}
			if obs[j].at.After(all) {
				all = obs[j].at
			}
		}
		if all.IsZero() {
			missing++
			continue
		}
		out = append(out, max(0, all.Sub(a.at[k])))
	}
	return out, missing, nil
}

// appliedSeq reads openhuman_memory_replication_applied_seq from a
// replica's /metrics.
func appliedSeq(ctx context.Context, client *http.Client, url string) (uint64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "openhuman_memory_replication_applied_seq "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return uint64(f), err
		}
	}
	return 0, fmt.Errorf("%s has no openhuman_memory_replication_applied_seq: is it a memory replica with replication on?", url)
}

// lagLine summarises the replication lag of a row's writes.
func lagLine(lags []time.Duration, missing, replicas int) string {
	if len(lags) == 0 {
		return fmt.Sprintf("replication lag: no write reported applied on all %d replicas (%d not seen)", replicas, missing)
	}
	return fmt.Sprintf("replication lag (reply → applied on all %d replicas, polled every %s), %d writes: p50 %s, p99 %s, max %s; not seen applied everywhere: %d",
		replicas, pollEvery, len(lags), round(percentile(lags, 0.50)), round(percentile(lags, 0.99)), round(percentile(lags, 1)), missing)
}

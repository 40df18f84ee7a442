package deploy

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Container scenarios of replicated memory: a replica killed, a NATS
// server stopped, a replica cut off from the network, forget, each with
// writes through the gateway's /rpc. "Acknowledged" is a learn whose reply
// carried an id; every one must be listed afterwards, none twice.

// runTag makes the texts of one scenario unique to this run.
func runTag(name string) string {
	return name + strconv.FormatInt(time.Now().UnixNano(), 36)
}

// A memory replica killed (SIGKILL) during a burst of 2,000 learns from
// eight clients: every acknowledged write is listed at once from the other
// replica; restarted, the killed replica holds every one of them too,
// answering alone.
func (s *stack) memoryReplicaKilled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	tag := runTag("burstkill")
	w := newWrites()
	killed := s.container(t, "memory-1")
	var killedAt time.Time
	start := time.Now()
	err := s.burst(ctx, w, 8, 2000, func(i int) string {
		return fmt.Sprintf("Burst %s learning %d: the replica keeps note %d of the kill test.", tag, i, i)
	}, 300, func() error {
		killedAt = time.Now()
		return run("docker", "kill", killed)
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	restarted := time.Time{}
	defer func() {
		if restarted.IsZero() {
			docker(t, "start", killed)
			s.waitHealthy(t, "memory-1", 2*time.Minute)
		}
	}()
	acked, failed := w.count()
	t.Logf("burst: %d acknowledged, %d failed in %s (memory-1 killed after 300 acknowledged); failures: %v",
		acked, failed, time.Since(start).Round(time.Millisecond), w.errs)
	if running := strings.TrimSpace(string(docker(t, "inspect", "-f", "{{.State.Running}}", killed))); running != "false" {
		t.Fatalf("memory-1 is running again (%s): the read would not prove memory-2 has everything", running)
	}
	lost, dups, _ := s.checkWrites(t, ctx, w, tag, 30*time.Second)
	t.Logf("memory-2 alone, right after the burst: lost %d, duplicated %d of %d acknowledged", lost, dups, acked)

	restarted = time.Now()
	docker(t, "start", killed)
	healthy := s.waitHealthy(t, "memory-1", 2*time.Minute)
	s.compose(t, "stop", "memory-2")
	defer func() {
		s.compose(t, "start", "memory-2")
		s.waitHealthy(t, "memory-2", 2*time.Minute)
		s.waitReady(time.Minute)
	}()
	lost, dups, _ = s.checkWrites(t, ctx, w, tag, time.Minute)
	t.Logf("memory-1 restarted (down %s): healthy after %s, every write listed by it alone %s after its start: lost %d, duplicated %d",
		restarted.Sub(killedAt).Round(time.Millisecond), healthy.Round(time.Millisecond),
		time.Since(restarted).Round(time.Millisecond), lost, dups)
	if acked < 1500 {
		t.Errorf("only %d of 2000 learns acknowledged: the kill cost more than the calls it held", acked)
	}
}

// One of the three NATS servers (the stream's leader) stopped during
// writes: writes go on (those failing during the election were not
// acknowledged), nothing acknowledged is lost; then it is started again.
func (s *stack) natsServerStopped(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	leader := s.stream(t, "-").Leader
	if !strings.HasPrefix(leader, "nats-") {
		t.Fatalf("stream leader %q, want one of nats-1..3", leader)
	}
	tag := runTag("natsstop")
	w := newWrites()
	text := func(i int) string {
		return fmt.Sprintf("Write %s number %d goes on while a NATS server is down.", tag, i)
	}
	// With the leader down, writes go on for 15 s and until 500 more are
	// acknowledged: a count, not a rate, so a busy machine's slower calls
	// take longer instead of failing; two minutes without them is a stall.
	const downFor, downWrites, stall = 15 * time.Second, 500, 2 * time.Minute
	var (
		mu          sync.Mutex
		stoppedAt   time.Time
		ackedAtStop int
	)
	restarted := false
	defer func() {
		if !restarted {
			s.compose(t, "start", leader)
		}
	}()
	err := s.burst(ctx, w, 4, 1000000, text, 100, func() error {
		if err := run("../scripts/compose-local.sh", "compose", "stop", leader); err != nil {
			return err
		}
		acked, _ := w.count()
		mu.Lock()
		defer mu.Unlock()
		stoppedAt, ackedAtStop = time.Now(), acked
		return nil
	}, func() bool {
		mu.Lock()
		defer mu.Unlock()
		if stoppedAt.IsZero() {
			return false
		}
		acked, _ := w.count()
		down := time.Since(stoppedAt)
		return down > downFor && acked-ackedAtStop >= downWrites || down > stall
	})
	if err != nil {
		t.Fatal(err)
	}
	down := time.Since(stoppedAt)
	acked, failed := w.count()
	ackedDown := acked - ackedAtStop
	t.Logf("leader %s stopped after 100 acknowledged; %d acknowledged, %d failed, %d acknowledged over %s with it down; failures: %v",
		leader, acked, failed, ackedDown, down.Round(time.Millisecond), w.errs)
	newLeader := s.stream(t, "-").Leader
	s.compose(t, "start", leader)
	restarted = true
	s.waitHealthy(t, leader, 2*time.Minute)
	// Writes with every server back.
	s.burst(ctx, w, 4, 100, func(i int) string { return text(10000000 + i) }, 0, nil, nil)
	lost, dups, _ := s.checkWrites(t, ctx, w, tag, 30*time.Second)
	acked, failed = w.count()
	t.Logf("new leader %s; after %s came back: %d acknowledged, %d failed, lost %d, duplicated %d", newLeader, leader, acked, failed, lost, dups)
	if ackedDown < downWrites {
		t.Errorf("%d writes acknowledged in %s with a NATS server down, want %d: writes did not go on with two servers of three",
			ackedDown, down.Round(time.Second), downWrites)
	}
	s.waitReady(time.Minute)
}

// A memory replica cut off from the network (docker network disconnect)
// while writes go through the gateway, then connected again: it catches up,
// and answering alone it lists every write made while it was away.
func (s *stack) memoryReplicaPartitioned(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tag := runTag("partition")
	w := newWrites()
	cut := s.container(t, "memory-2")
	docker(t, "network", "disconnect", backend, cut)
	reconnected := false
	defer func() {
		if !reconnected {
			docker(t, "network", "connect", "--alias", "memory-2", backend, cut)
		}
	}()
	start := time.Now()
	s.burst(ctx, w, 4, 200, func(i int) string {
		return fmt.Sprintf("Partition %s write %d reaches memory-2 only once it is back.", tag, i)
	}, 0, nil, nil)
	acked, failed := w.count()
	t.Logf("memory-2 cut off: %d acknowledged, %d failed in %s; failures: %v", acked, failed, time.Since(start).Round(time.Millisecond), w.errs)

	docker(t, "network", "connect", "--alias", "memory-2", backend, cut)
	reconnected = true
	back := time.Now()
	s.compose(t, "stop", "memory-1")
	defer func() {
		s.compose(t, "start", "memory-1")
		s.waitHealthy(t, "memory-1", 2*time.Minute)
		s.waitReady(time.Minute)
	}()
	lost, dups, _ := s.checkWrites(t, ctx, w, tag, 2*time.Minute)
	t.Logf("memory-2 reconnected: listed every write alone %s later (memory-1 stopped meanwhile): lost %d, duplicated %d of %d",
		time.Since(back).Round(time.Millisecond), lost, dups, acked)
	// NATS keeps routing to the cut-off replica until it notices the dead
	// connection (its pings, two minutes); the gateway sends such a call
	// again, up to three sends, so about one in eight fails, unacknowledged.
	if acked < 150 {
		t.Errorf("%d of 200 writes acknowledged with one replica cut off", acked)
	}
}

// memory.forget through the gateway: the text is gone from both replicas'
// SQLite files (WAL included), from every message of the stream and every
// snapshot, and the audit trail never held it. Each is first seen to hold
// it (or, the audit, to record the calls), so an absence means something.
func (s *stack) forgetEverywhere(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	text := "Forget test " + runTag("secret") + ": the courier's gate code is kept nowhere once forgotten."
	var learned learnResult
	if err := s.rpc(ctx, "openhuman.memory_learn", map[string]any{"text": text, "kind": "fact"}, &learned); err != nil {
		t.Fatalf("learn: %v", err)
	}
	waitFor := func(what string, cond func() bool) time.Duration {
		start := time.Now()
		for !cond() {
			if time.Since(start) > 30*time.Second {
				t.Fatalf("%s: not within 30s", what)
			}
			time.Sleep(250 * time.Millisecond)
		}
		return time.Since(start)
	}
	for _, r := range []string{"memory-1", "memory-2"} {
		waitFor(r+" holds the learning", func() bool { return s.homeHolds(t, r, text) })
	}
	if st := s.stream(t, text); len(st.Matches) == 0 {
		t.Fatalf("no message of the stream holds the learning (%+v): the check below would prove nothing", st)
	}

	var forgot struct {
		Forgotten int    `json:"forgotten"`
		Seq       uint64 `json:"seq"`
	}
	if err := s.rpc(ctx, "openhuman.memory_forget", map[string]any{"ids": []string{learned.ID}}, &forgot); err != nil || forgot.Forgotten != 1 {
		t.Fatalf("forget %s: %+v, %v", learned.ID, forgot, err)
	}
	for _, r := range []string{"memory-1", "memory-2"} {
		took := waitFor(r+" no longer holds the text in /data", func() bool { return !s.homeHolds(t, r, text) })
		t.Logf("%s: text gone from its SQLite files %s after the forget's reply", r, took.Round(time.Millisecond))
	}
	st := s.stream(t, text)
	if len(st.Matches) > 0 || len(st.SnapshotMatches) > 0 {
		t.Errorf("after forget the stream still holds the text in messages %v, snapshots %v", st.Matches, st.SnapshotMatches)
	}
	t.Logf("stream after forget: %d messages (last seq %d), %d snapshots, none holding the text", st.Messages, st.LastSeq, st.Snapshots)

	// The gateway's audit goes to Redis (OPENHUMAN_REDIS_URL); a row Redis
	// cannot take goes to the gateway's audit.db.
	out, err := s.composeOutput("exec", "-T", "redis", "redis-cli", "XRANGE", "openhuman:audit", "-", "+")
	if err != nil {
		t.Fatalf("reading the audit stream: %v", err)
	}
	if !strings.Contains(out, "memory.forget") || !strings.Contains(out, "memory.learn") {
		t.Errorf("the audit stream openhuman:audit records no memory.learn or memory.forget:\n%.500s", out)
	}
	if strings.Contains(out, text) || s.homeHolds(t, "gateway", text) {
		t.Error("the audit (Redis stream or the gateway's audit.db) holds the forgotten text")
	}
}

// composeOutput runs a compose command and returns its standard output.
func (s *stack) composeOutput(args ...string) (string, error) {
	out, err := exec.Command("../scripts/compose-local.sh", append([]string{"compose"}, args...)...).Output()
	return string(out), err
}

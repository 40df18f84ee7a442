package memorymain

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	js "github.com/nats-io/nats.go/jetstream"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/jetstream"
)

func TestReplicasReadTheirWritesAndEndIdentical(t *testing.T) {
	ns := mustJetStream(t)
	a := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	b := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	if a.repl.name == b.repl.name {
		t.Fatalf("both replicas are named %s", a.repl.name)
	}
	ctx := context.Background()

	// Learned through a, read at once through b with min_seq.
	res := learn(t, a, "The staging database lives on host kestrel-7.")
	if res.Seq == 0 {
		t.Fatal("a replicated learn returned no seq")
	}
	if err := b.domain.AwaitSeq(ctx, res.Seq); err != nil {
		t.Fatal(err)
	}
	if _, err := b.store.Item(ctx, res.ID, nil); err != nil {
		t.Fatalf("b does not hold the learning at min_seq %d: %v", res.Seq, err)
	}

	// A resent learn is stored once: the stream does not grow.
	before := lastSeq(t, ns.ClientURL())
	again := learn(t, b, "The staging database lives on host kestrel-7.")
	if !again.Replayed || again.ID != res.ID || again.Seq != res.Seq {
		t.Fatalf("resent learn = %+v, want a replay of %+v", again, res)
	}
	if after := lastSeq(t, ns.ClientURL()); after != before {
		t.Fatalf("a resent learn grew the stream from %d to %d", before, after)
	}

	// 600 learns alternating between the replicas; each is seen by the
	// other as soon as it has applied the write's seq. The gap between a
	// write's reply (its replica has applied it) and the other replica
	// having applied it is the replication lag.
	var lags []time.Duration
	for i := range 600 {
		w, r := a, b
		if i%2 == 1 {
			w, r = b, a
		}
		res := learn(t, w, fmt.Sprintf("Fact number %d: the build agent %d restarts at %02d:%02d.", i, i%7, i%24, i%60))
		acked := time.Now()
		if err := r.domain.AwaitSeq(ctx, res.Seq); err != nil {
			t.Fatal(err)
		}
		lags = append(lags, time.Since(acked))
		if _, err := r.store.Item(ctx, res.ID, nil); err != nil {
			t.Fatalf("learn %d not on the other replica at seq %d: %v", i, res.Seq, err)
		}
	}
	slices.Sort(lags)
	t.Logf("replication lag, write reply → the other replica applied (600 learns): p50 %v, p99 %v, max %v",
		lags[len(lags)/2], lags[len(lags)*99/100], lags[len(lags)-1])
	last := lastSeq(t, ns.ClientURL())
	caughtUp(t, a, last)
	caughtUp(t, b, last)
	ca, cb := contents(t, a), contents(t, b)
	if len(ca) != 601 || !slices.Equal(ca, cb) {
		t.Fatalf("stores differ: a holds %d items, b %d", len(ca), len(cb))
	}
}

func TestReplicaResumesFromItsStoredSequence(t *testing.T) {
	ns := mustJetStream(t)
	a := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	homeB := t.TempDir()
	b := startReplica(t, replConfig(t, ns.ClientURL(), homeB, 1))
	for i := range 5 {
		learn(t, a, fmt.Sprintf("Before the restart, fact %d.", i))
	}
	caughtUp(t, b, lastSeq(t, ns.ClientURL()))
	stopReplica(t, b)
	for i := range 7 {
		learn(t, a, fmt.Sprintf("While b was away, fact %d.", i))
	}
	b = startReplica(t, replConfig(t, ns.ClientURL(), homeB, 1))
	caughtUp(t, b, lastSeq(t, ns.ClientURL()))
	if n := appliedEvents(b, 7); n != 7 {
		t.Fatalf("the restarted replica applied %d events, want the 7 it missed", n)
	}
	if ca, cb := contents(t, a), contents(t, b); !slices.Equal(ca, cb) || len(ca) != 12 {
		t.Fatalf("stores differ after the restart: a %d items, b %d", len(ca), len(cb))
	}
}

// A replica joins the bus only once it has applied what the stream held
// when it started: before, every read routed to it would answer "behind"
// (seen right after a first start of the compose stack).
func TestReplicaTakesCallsOnceCaughtUp(t *testing.T) {
	ns := mustJetStream(t)
	a := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	for i := range 200 {
		learn(t, a, fmt.Sprintf("Backlog fact %d: drawer %d holds folder %d.", i, i%7, i))
	}
	last := lastSeq(t, ns.ClientURL())
	b := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	if got := b.repl.store.Applied(); got < last {
		t.Fatalf("the new replica took calls having applied %d of the stream's %d events", got, last)
	}
	if err := b.Ready(); err != nil {
		t.Fatalf("caught up, yet not ready: %v", err)
	}
}

func TestNewReplicaStartsFromASnapshotAndTheTail(t *testing.T) {
	followOptions = jetstream.FollowOptions{SnapshotEvery: 50}
	t.Cleanup(func() { followOptions = jetstream.FollowOptions{} })
	ns := mustJetStream(t)
	a := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	for i := range 120 {
		learn(t, a, fmt.Sprintf("Snapshot fact %d: rack %d holds node %d.", i, i%9, i))
	}
	last := lastSeq(t, ns.ClientURL())
	c := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	caughtUp(t, c, last)
	applied := appliedEvents(c, int64(last-c.repl.restored))
	t.Logf("new replica: restored a snapshot at seq %d, applied %d of the stream's %d events", c.repl.restored, applied, last)
	if c.repl.restored == 0 || applied >= int64(last) || uint64(applied) != last-c.repl.restored {
		t.Fatalf("new replica restored seq %d and applied %d events of %d: want a snapshot and only the tail", c.repl.restored, applied, last)
	}
	if c.repl.name == a.repl.name {
		t.Fatal("the restored replica kept the name of the replica whose snapshot it took")
	}
	if ca, cc := contents(t, a), contents(t, c); !slices.Equal(ca, cc) {
		t.Fatalf("stores differ: a %d items, new replica %d", len(ca), len(cc))
	}
}

func TestForgetLeavesNoTextInStoresStreamOrSnapshots(t *testing.T) {
	followOptions = jetstream.FollowOptions{SnapshotEvery: 1}
	t.Cleanup(func() { followOptions = jetstream.FollowOptions{} })
	ns := mustJetStream(t)
	a := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	b := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	ctx := context.Background()
	cc := contract.CallContext{Source: "cli"}
	const learned, chunk = "zebrakumquat vault code 7731", "quokkamarmalade rotation"
	secret := learn(t, a, "The "+learned+" opens the archive.")
	learn(t, a, "Unrelated: the office plant needs water on Fridays.")
	doc := "# Runbook\n\nStep one: restart the queue.\n\n## Keys\n\nThe " + chunk + " happens monthly.\n\n## Other\n\nStep three: page the on-call engineer."
	ing, err := a.domain.Ingest(ctx, memory.IngestParams{Files: []contract.IngestFile{{SourceID: "/docs/runbook.md", DisplayName: "runbook.md",
		SourceKind: "file", Content: doc, Language: "markdown"}}}, cc)
	if err != nil {
		t.Fatal(err)
	}
	caughtUp(t, b, ing.Seq)
	chunks, _, err := b.store.Browse(ctx, memory.BrowseQuery{SourceIDs: []string{"/docs/runbook.md"}, K: 100})
	if err != nil || len(chunks) < 2 {
		t.Fatalf("runbook chunks = %d, %v; want several", len(chunks), err)
	}
	var chunkID string
	for _, c := range chunks {
		if strings.Contains(c.Text, chunk) {
			chunkID = c.ID
		}
	}
	if chunkID == "" {
		t.Fatal("no chunk holds the phrase")
	}
	waitSnapshots(t, ns.ClientURL(), 2, ing.Seq)

	res, err := b.domain.Forget(ctx, memory.ForgetParams{IDs: []string{secret.ID, chunkID, "nope"}}, cc)
	if err != nil {
		t.Fatal(err)
	}
	if res.Forgotten != 2 || len(res.NotFound) != 1 || res.Seq == 0 {
		t.Fatalf("forget = %+v", res)
	}
	last := lastSeq(t, ns.ClientURL())
	caughtUp(t, a, last)
	caughtUp(t, b, last)
	waitSnapshots(t, ns.ClientURL(), 2, res.Seq)

	// The ids too: each is a plain hash of its item's text.
	for _, phrase := range []string{learned, chunk, secret.ID, chunkID} {
		for _, s := range []*server{a, b} {
			if err := s.store.Checkpoint(); err != nil {
				t.Fatal(err)
			}
			grepFiles(t, filepath.Dir(s.store.Path), phrase)
		}
		grepStream(t, ns.ClientURL(), phrase)
		grepSnapshots(t, ns.ClientURL(), phrase)
	}
	// What the forget left of the runbook is on both replicas, and on a
	// replica built now.
	c := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	caughtUp(t, c, last)
	for _, s := range []*server{a, b, c} {
		left, _, err := s.store.Browse(ctx, memory.BrowseQuery{SourceIDs: []string{"/docs/runbook.md"}, K: 100})
		if err != nil || len(left) != len(chunks)-1 {
			t.Fatalf("replica %s holds %d runbook chunks after forgetting one of %d (%v)", s.repl.name, len(left), len(chunks), err)
		}
	}
	if ca, cc := contents(t, a), contents(t, c); !slices.Equal(ca, cc) {
		t.Fatalf("a replica built after the forget differs: %d items vs %d", len(cc), len(ca))
	}
}

// waitSnapshots waits until n snapshots of at least seq are stored.
func waitSnapshots(tb testing.TB, url string, n int, seq uint64) {
	tb.Helper()
	obs := mustObjects(tb, url)
	deadline := time.Now().Add(20 * time.Second)
	for {
		list, _ := obs.List(context.Background())
		fresh := 0
		for _, o := range list {
			var s uint64
			fmt.Sscan(o.Metadata["seq"], &s)
			if s >= seq {
				fresh++
			}
		}
		if fresh >= n {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%d snapshots of seq ≥ %d after 20 s, want %d", fresh, seq, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func mustObjects(tb testing.TB, url string) js.ObjectStore {
	tb.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(nc.Close)
	j, _ := js.New(nc)
	obs, err := j.ObjectStore(context.Background(), jetstream.Bucket)
	if err != nil {
		tb.Fatal(err)
	}
	return obs
}

// grepFiles fails when any file in dir holds phrase.
func grepFiles(tb testing.TB, dir, phrase string) {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err == nil && bytes.Contains(b, []byte(phrase)) {
			tb.Fatalf("%s still holds %q", filepath.Join(dir, e.Name()), phrase)
		}
	}
}

// grepStream reads every message of the stream.
func grepStream(tb testing.TB, url, phrase string) {
	tb.Helper()
	stream := mustStream(tb, url)
	info, err := stream.Info(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	read := 0
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq; seq++ {
		msg, err := stream.GetMsg(context.Background(), seq)
		if err != nil {
			continue
		}
		read++
		if bytes.Contains(msg.Data, []byte(phrase)) {
			tb.Fatalf("stream message %d (%s) still holds %q", seq, msg.Subject, phrase)
		}
	}
	if read == 0 {
		tb.Fatal("read no message of the stream")
	}
}

// grepSnapshots downloads every snapshot.
func grepSnapshots(tb testing.TB, url, phrase string) {
	tb.Helper()
	obs := mustObjects(tb, url)
	list, err := obs.List(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	for _, o := range list {
		r, err := obs.Get(context.Background(), o.Name)
		if err != nil {
			tb.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			tb.Fatal(err)
		}
		if bytes.Contains(b, []byte(phrase)) {
			tb.Fatalf("snapshot %s (seq %s) still holds %q", o.Name, o.Metadata["seq"], phrase)
		}
	}
}

// An event no replica can apply is skipped, logged and counted, and the
// replicas go on with the next.
func TestPoisonEventIsSkippedNotWedging(t *testing.T) {
	ns := mustJetStream(t)
	a := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	j, _ := js.New(nc)
	ack, err := j.Publish(context.Background(), jetstream.Prefix+".item.garbage", []byte("not an event"))
	if err != nil {
		t.Fatal(err)
	}
	caughtUp(t, a, ack.Sequence)
	res := learn(t, a, "After the poison, learning still works.")
	if res.Seq <= ack.Sequence {
		t.Fatalf("learn seq %d, poison at %d", res.Seq, ack.Sequence)
	}
	if _, applied, _ := a.store.Replica(context.Background()); applied != res.Seq {
		t.Fatalf("store applied %d, want %d", applied, res.Seq)
	}
}

package jetstream

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

var _ inner = (*sqlite.Store)(nil)

// testIDKey is the replicas' memory.id_key in tests.
var testIDKey = []byte("0123456789abcdef0123456789abcdef")

// mustJournal opens the stream on a JetStream server of the test's own.
func mustJournal(tb testing.TB) *Journal {
	tb.Helper()
	ns, err := embedded.Start(embedded.Options{JetStream: true, StoreDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(ns.Shutdown)
	nc, err := ns.Connect("jetstream-test", nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(nc.Close)
	j, err := Open(context.Background(), nc, Options{IDKey: testIDKey})
	if err != nil {
		tb.Fatal(err)
	}
	return j
}

// mustReplica is a replica's store, its own SQLite in a temp dir.
func mustReplica(tb testing.TB, j *Journal) (*Store, *sqlite.Store) {
	tb.Helper()
	in := sqlite.New(filepath.Join(tb.TempDir(), "memory.db"))
	if err := in.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { in.Close() })
	return NewStore(j, in, 0), in
}

// run follows the stream as name until the test ends.
func run(tb testing.TB, f *Follower) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = f.Run(ctx) }()
	tb.Cleanup(func() { cancel(); <-done })
	select {
	case <-f.CaughtUp():
	case <-time.After(20 * time.Second):
		tb.Fatal("the follower did not catch up")
	}
}

func note(text string) memory.Item {
	it := memory.Item{Kind: "learning", Text: text, Source: "client", Provenance: "test",
		ObservedAt: time.Unix(1700000000, 0).UTC(), CreatedAt: time.Unix(1700000000, 0).UTC()}
	it.ID = memory.Fingerprint(it)
	return it
}

// appendNote appends a put of text as a writer would, without waiting for
// it to be applied.
func appendNote(tb testing.TB, j *Journal, text string) (memory.Item, uint64) {
	tb.Helper()
	it := note(text)
	data, err := encode(event{Op: opPut, Items: toWireItems([]memory.Item{it})})
	if err != nil {
		tb.Fatal(err)
	}
	seq, _, err := j.Append(context.Background(), subjectItem+it.ID, "put:"+it.ID, data)
	if err != nil {
		tb.Fatal(err)
	}
	return it, seq
}

func holds(tb testing.TB, in *sqlite.Store, id string) bool {
	tb.Helper()
	_, err := in.Item(context.Background(), id, nil)
	return err == nil
}

// A write through the store is answered once the replica's own store
// holds it, with its sequence; the same write again is a replay, and a
// second replica following the stream ends with the same items.
func TestWritesGoThroughTheStream(t *testing.T) {
	j := mustJournal(t)
	a, inA := mustReplica(t, j)
	run(t, j.NewFollower("a", a, FollowOptions{}))
	ctx := context.Background()
	it := note("The badge number is 4471.")
	w, err := a.Put(ctx, []memory.Item{it})
	if err != nil || w.Seq == 0 || len(w.Replayed) != 1 || w.Replayed[0] {
		t.Fatalf("put: %+v %v", w, err)
	}
	if !holds(t, inA, it.ID) || a.Applied() < w.Seq {
		t.Fatalf("answered before applied: applied %d of %d", a.Applied(), w.Seq)
	}
	if w, err := a.Put(ctx, []memory.Item{it}); err != nil || !w.Replayed[0] {
		t.Fatalf("put again: %+v %v", w, err)
	}
	_, chunk, src := goldenItems()
	if w, err := a.ReplaceSource(ctx, src, []memory.Item{chunk}); err != nil || w.Unchanged || w.Replayed[0] || w.Seq <= 1 {
		t.Fatalf("replace: %+v %v", w, err)
	}
	if w, err := a.ReplaceSource(ctx, src, []memory.Item{chunk}); err != nil || !w.Unchanged {
		t.Fatalf("replace again: %+v %v", w, err)
	}

	b, inB := mustReplica(t, j)
	run(t, j.NewFollower("b", b, FollowOptions{}))
	if err := b.Await(ctx, w.Seq); err != nil {
		t.Fatal(err)
	}
	if !holds(t, inB, it.ID) || !holds(t, inB, chunk.ID) {
		t.Fatal("the second replica lacks what the first stored")
	}

	// A forget takes the learning's text out of the stream.
	w, err = a.Delete(ctx, []string{it.ID, "nothing-of-that-id"}, nil)
	if err != nil || len(w.Missing) != 1 || w.Missing[0] != "nothing-of-that-id" {
		t.Fatalf("delete: %+v %v", w, err)
	}
	if last, err := j.Last(ctx, subjectItem+it.ID); err != nil || last != 0 {
		t.Errorf("the forgotten learning's subject still ends at %d (%v)", last, err)
	}
	if err := b.Await(ctx, w.Seq); err != nil || holds(t, inB, it.ID) {
		t.Errorf("the second replica still holds the forgotten learning (%v)", err)
	}
}

// An event as a replica of the previous version wrote it (testdata) is
// applied as it was meant.
func TestFollowerAppliesEventsAsWrittenBefore(t *testing.T) {
	j := mustJournal(t)
	learning, chunk, _ := goldenItems()
	ctx := context.Background()
	for _, name := range []string{"put", "replace"} {
		if _, _, err := j.Append(ctx, subjectItem+name, "", readGolden(t, name)); err != nil {
			t.Fatal(err)
		}
	}
	st, in := mustReplica(t, j)
	run(t, j.NewFollower("a", st, FollowOptions{}))
	got, err := in.Item(ctx, learning.ID, nil)
	if err != nil || got.Text != learning.Text || *got.Confidence != 0.8 || got.Meta.Workspace != "team" {
		t.Fatalf("the learning of put.json: %+v %v", got, err)
	}
	if !holds(t, in, chunk.ID) {
		t.Fatal("the chunk of replace.json was not stored")
	}
}

// An event no replica can apply is skipped, marked applied, and what
// follows it is applied.
func TestFollowerSkipsAPoisonEvent(t *testing.T) {
	j := mustJournal(t)
	ctx := context.Background()
	if _, _, err := j.Append(ctx, subjectItem+"poison", "", []byte(`{"op":"explode"}`)); err != nil {
		t.Fatal(err)
	}
	it, seq := appendNote(t, j, "After the poison.")
	st, in := mustReplica(t, j)
	run(t, j.NewFollower("a", st, FollowOptions{}))
	if err := st.Await(ctx, seq); err != nil || !holds(t, in, it.ID) {
		t.Fatalf("the event after the poison: %v", err)
	}
	if _, applied, err := in.Replica(ctx); err != nil || applied != seq {
		t.Fatalf("the store records %d as applied (%v), want %d", applied, err, seq)
	}
}

// A consumer that delivers an event past ones the replica has not applied
// (a batch lost in flight, sent again only after the ack wait, behind
// newer events) has the follower apply those first, from the stream, in
// order; a gap left by a forget's purge needs nothing.
func TestFollowerFillsAGapBeforeApplying(t *testing.T) {
	j := mustJournal(t)
	ctx := context.Background()
	var items []memory.Item
	var last uint64
	for i := range 4 {
		it, seq := appendNote(t, j, fmt.Sprintf("Fact %d of the backlog.", i))
		items, last = append(items, it), seq
	}
	// The second is forgotten: purged from the stream.
	if err := j.Purge(ctx, subjectItem+items[1].ID, 0); err != nil {
		t.Fatal(err)
	}
	st, in := mustReplica(t, j)
	f := j.NewFollower("a", st, FollowOptions{})
	// A consumer that skipped past the first three: it delivers the last.
	cons, err := j.js.CreateConsumer(ctx, Stream, jetstream.ConsumerConfig{
		AckPolicy: jetstream.AckExplicitPolicy, DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: last})
	if err != nil {
		t.Fatal(err)
	}
	msg, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.handle(ctx, msg); err != nil {
		t.Fatal(err)
	}
	for i, it := range items {
		if want := i != 1; holds(t, in, it.ID) != want {
			t.Errorf("fact %d: held %v, want %v", i, !want, want)
		}
	}
	if st.Applied() != last || f.AppliedEvents() != 3 {
		t.Errorf("applied up to %d, %d events; want %d, 3", st.Applied(), f.AppliedEvents(), last)
	}
	// Applied again, the event is a redelivery and changes nothing.
	if fresh, err := st.apply(ctx, last, msg.Data()); err != nil || fresh || st.Applied() != last {
		t.Errorf("a redelivery: fresh %v, %v, applied %d", fresh, err, st.Applied())
	}
}

// A follower tells of new items, and only of new ones, so the domain
// embeds what other replicas wrote.
func TestFollowerTellsOfNewItems(t *testing.T) {
	j := mustJournal(t)
	ctx := context.Background()
	it, _ := appendNote(t, j, "A fact for the vectors.")
	data, _ := encode(event{Op: opPut, Items: toWireItems([]memory.Item{it})})
	if _, _, err := j.Append(ctx, subjectItem+it.ID, "", data); err != nil { // the same item again: a replay
		t.Fatal(err)
	}
	st, _ := mustReplica(t, j)
	told := make(chan struct{}, 8)
	run(t, j.NewFollower("a", st, FollowOptions{NewItems: func(context.Context) { told <- struct{}{} }}))
	select {
	case <-told:
	case <-time.After(10 * time.Second):
		t.Fatal("not told of the new item")
	}
	// The replay stored nothing: nothing more to tell (a signal sent for it
	// would be in the channel by now, the follower being caught up).
	if n := len(told); n != 0 {
		t.Errorf("told of new items %d more times, want none", n)
	}
}

// A replica behind the read's sequence says so.
func TestAwaitAheadIsUnavailable(t *testing.T) {
	j := mustJournal(t)
	st, _ := mustReplica(t, j)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := st.Await(ctx, 5); err == nil {
		t.Fatal("awaiting a sequence never written returned nil")
	}
	if err := st.Await(ctx, 0); err != nil {
		t.Fatal(err)
	}
}

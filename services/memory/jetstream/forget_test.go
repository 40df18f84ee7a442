package jetstream

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// follow runs f until the returned stop is called (or the test ends).
func follow(tb testing.TB, f *Follower) (stop func()) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = f.Run(ctx) }()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	tb.Cleanup(stop)
	return stop
}

// traces are what would tell that it was stored: the text, and its
// fingerprints (the item's id and the text's SHA-256), in hex and raw.
func traces(tb testing.TB, it memory.Item) map[string][]byte {
	tb.Helper()
	id, err := hex.DecodeString(it.ID)
	if err != nil {
		tb.Fatal(err)
	}
	sum := sha256.Sum256([]byte(it.Text))
	return map[string][]byte{"text": []byte(it.Text), "id": []byte(it.ID), "raw id": id,
		"sha256": []byte(hex.EncodeToString(sum[:])), "raw sha256": sum[:]}
}

// rawStream is every message a stream holds, subject, headers and data.
func rawStream(tb testing.TB, j *Journal, name string) [][]byte {
	tb.Helper()
	ctx := context.Background()
	stream, err := j.js.Stream(ctx, name)
	if err != nil {
		tb.Fatal(err)
	}
	info, err := stream.Info(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		msg, err := stream.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			tb.Fatal(err)
		}
		b := append([]byte(msg.Subject+"\n"), msg.Data...)
		for k, vs := range msg.Header {
			for _, v := range vs {
				b = append(b, "\n"+k+": "+v...)
			}
		}
		out = append(out, b)
	}
	return out
}

// stored is what the stream and the snapshot bucket hold, as raw
// messages (the bucket's chunks and metadata) and as whole snapshots.
func stored(tb testing.TB, j *Journal) map[string][]byte {
	tb.Helper()
	all := map[string][]byte{}
	for i, m := range rawStream(tb, j, Stream) {
		all[fmt.Sprintf("stream message #%d", i)] = m
	}
	for i, m := range rawStream(tb, j, "OBJ_"+Bucket) {
		all[fmt.Sprintf("bucket message #%d", i)] = m
	}
	ctx := context.Background()
	list, err := j.obs.List(ctx)
	if err != nil && !errors.Is(err, jetstream.ErrNoObjectsFound) {
		tb.Fatal(err)
	}
	for _, o := range list {
		r, err := j.obs.Get(ctx, o.Name)
		if err != nil {
			tb.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			tb.Fatal(err)
		}
		all["snapshot "+o.Name+" seq "+o.Metadata["seq"]] = b
	}
	return all
}

// assertNoTrace fails for every place that holds a trace of a forgotten
// item, and when nothing holds the text of one kept (the search read
// nothing).
func assertNoTrace(tb testing.TB, j *Journal, forgotten []memory.Item, kept memory.Item) {
	tb.Helper()
	all := stored(tb, j)
	found := false
	for _, b := range all {
		found = found || bytes.Contains(b, []byte(kept.Text))
	}
	if !found {
		tb.Fatalf("nothing of %d messages and snapshots holds a kept item's text", len(all))
	}
	for _, it := range forgotten {
		for what, needle := range traces(tb, it) {
			for where, b := range all {
				if bytes.Contains(b, needle) {
					tb.Errorf("%s holds the %s of the forgotten %q", where, what, it.Text)
				}
			}
		}
	}
}

// waitSnapshot waits until a snapshot of at least seq is stored.
func waitSnapshot(tb testing.TB, j *Journal, seq uint64) {
	tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		list, _ := j.obs.List(context.Background())
		for _, o := range list {
			if n, ok := snapshotSeq(o); ok && n >= seq {
				return
			}
		}
		if time.Now().After(deadline) {
			tb.Fatalf("no snapshot of seq ≥ %d after 20 s", seq)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func snapshotSeq(o *jetstream.ObjectInfo) (uint64, bool) {
	var n uint64
	for _, c := range o.Metadata["seq"] {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, o.Metadata["seq"] != ""
}

// runbook is a source of three chunks.
func runbook() (memory.SourceRecord, []memory.Item) {
	src := memory.SourceRecord{ID: "docs/runbook.md", Kind: "file", DisplayName: "runbook.md", ContentHash: "c0ffee"}
	var chunks []memory.Item
	for _, text := range []string{"Step one: restart the queue.", "The quokkamarmalade rotation happens monthly.", "Step three: page the on-call engineer."} {
		it := memory.Item{Kind: "document", Text: text, Source: "file", Provenance: "test", SourceID: src.ID, SourceRef: text[:8],
			Meta:       memory.Meta{FilePath: src.ID},
			ObservedAt: time.Unix(1700000000, 0).UTC(), CreatedAt: time.Unix(1700000000, 0).UTC()}
		it.ID = memory.Fingerprint(it)
		chunks = append(chunks, it)
	}
	return src, chunks
}

// After a forget, neither the stream nor the snapshot bucket holds the
// forgotten text, the item's id (a plain hash of the text) or the text's
// SHA-256, in hex or raw: nothing there confirms a guess of it.
func TestForgetLeavesNoTraceInStreamOrSnapshots(t *testing.T) {
	j := mustJournal(t)
	a, inA := mustReplica(t, j)
	run(t, j.NewFollower("a", a, FollowOptions{SnapshotEvery: 1, TempDir: t.TempDir()}))
	ctx := context.Background()
	secret, kept := note("The zebrakumquat vault code 7731 opens the archive."), note("The office plant needs water on Fridays.")
	if _, err := a.Put(ctx, []memory.Item{secret, kept}); err != nil {
		t.Fatal(err)
	}
	src, chunks := runbook()
	w, err := a.ReplaceSource(ctx, src, chunks)
	if err != nil {
		t.Fatal(err)
	}
	waitSnapshot(t, j, w.Seq)

	w, err = a.Delete(ctx, []string{secret.ID, chunks[1].ID}, nil)
	if err != nil || len(w.Missing) != 0 {
		t.Fatalf("forget: %+v %v", w, err)
	}
	waitSnapshot(t, j, w.Seq)
	assertNoTrace(t, j, []memory.Item{secret, chunks[1]}, kept)
	for _, it := range []memory.Item{kept, chunks[0], chunks[2]} {
		if !holds(t, inA, it.ID) {
			t.Errorf("the forget lost %q", it.Text)
		}
	}
}

// A forget cut short once the deletion is appended (here: its replica
// does not apply it in time) has already taken the text out of the stream
// and every snapshot that held it; sent again, it finishes, and a replica
// built afterwards from the stream holds what the others hold.
func TestForgetCutShortHasRemovedTheTextAlready(t *testing.T) {
	j := mustJournal(t)
	a, inA := mustReplica(t, j)
	fa := j.NewFollower("a", a, FollowOptions{SnapshotEvery: 1, TempDir: t.TempDir()})
	stopA := follow(t, fa)
	<-fa.CaughtUp()
	ctx := context.Background()
	secret, kept := note("The zebrakumquat vault code 7731 opens the archive."), note("The office plant needs water on Fridays.")
	w, err := a.Put(ctx, []memory.Item{secret, kept})
	if err != nil {
		t.Fatal(err)
	}
	waitSnapshot(t, j, w.Seq)
	stopA()

	short, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if _, err := a.Delete(short, []string{secret.ID}, nil); err == nil {
		t.Fatal("a forget its replica never applied succeeded")
	}
	assertNoTrace(t, j, []memory.Item{secret}, kept)

	follow(t, fa)
	if _, err := a.Delete(ctx, []string{secret.ID}, nil); err != nil {
		t.Fatalf("the forget sent again: %v", err)
	}
	if holds(t, inA, secret.ID) || !holds(t, inA, kept.ID) {
		t.Fatal("the replica does not hold what the forget left")
	}
	assertNoTrace(t, j, []memory.Item{secret}, kept)
	b, inB := mustReplica(t, j)
	run(t, j.NewFollower("b", b, FollowOptions{}))
	if holds(t, inB, secret.ID) || !holds(t, inB, kept.ID) {
		t.Fatal("a replica built from the stream after the forget differs")
	}
}

// A snapshot another replica uploads while a forget runs, of a sequence
// before the deletion (it had not applied it yet), holds the text; the
// forget deletes it once the deletion is applied.
func TestForgetDropsASnapshotTakenWhileItRan(t *testing.T) {
	j := mustJournal(t)
	a, _ := mustReplica(t, j)
	fa := j.NewFollower("a", a, FollowOptions{TempDir: t.TempDir()})
	stopA := follow(t, fa)
	<-fa.CaughtUp()
	b, inB := mustReplica(t, j)
	fb := j.NewFollower("b", b, FollowOptions{TempDir: t.TempDir()})
	stopB := follow(t, fb)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	secret, kept := note("The zebrakumquat vault code 7731 opens the archive."), note("The office plant needs water on Fridays.")
	w, err := a.Put(ctx, []memory.Item{secret, kept})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Await(ctx, w.Seq); err != nil {
		t.Fatal(err)
	}
	stopA()
	stopB()

	forgot := make(chan error, 1)
	go func() {
		_, err := a.Delete(ctx, []string{secret.ID}, nil)
		forgot <- err
	}()
	// The deletion is appended; b has not applied it and uploads a
	// snapshot that still holds the text.
	for {
		if n, err := j.Last(ctx, subjectForget); err != nil || n > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := fb.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	if !snapshotHolds(t, j, snapshotName("b"), secret.Text) || !holds(t, inB, secret.ID) {
		t.Fatal("b's snapshot does not hold the text it had not yet forgotten")
	}
	follow(t, fa)
	if err := <-forgot; err != nil {
		t.Fatal(err)
	}
	assertNoTrace(t, j, []memory.Item{secret}, kept)
}

func snapshotHolds(tb testing.TB, j *Journal, name, text string) bool {
	tb.Helper()
	b, err := j.obs.GetBytes(context.Background(), name)
	if err != nil {
		tb.Fatal(err)
	}
	return bytes.Contains(b, []byte(text))
}

package memorymain

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	js "github.com/nats-io/nats.go/jetstream"

	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/jetstream"
)

// A replica stopped while events it had been sent were still unapplied
// (its consumer holds them as delivered and unacknowledged) applies every
// one of them, in order, when it starts again, even when newer events
// arrive before the server would send the old ones again.
func TestReplicaStoppedMidBatchLosesNothing(t *testing.T) {
	ns := mustJetStream(t)
	a := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	homeB := t.TempDir()
	b := startReplica(t, replConfig(t, ns.ClientURL(), homeB, 1))
	learn(t, a, "The first fact, before b stops.")
	caughtUp(t, b, lastSeq(t, ns.ClientURL()))
	stopReplica(t, b)
	for i := range 300 {
		learn(t, a, fmt.Sprintf("Backlog fact %d: shelf %d holds box %d.", i, i%11, i))
	}
	// b starts on the backlog and stops again with most of it pulled but
	// not applied: it takes calls before it has caught up, which a
	// replica does when catching up takes longer than catchUpWithin.
	defer func(d time.Duration) { catchUpWithin = d }(catchUpWithin)
	catchUpWithin = 0
	b = startReplica(t, replConfig(t, ns.ClientURL(), homeB, 1))
	from := b.repl.store.Applied()
	deadline := time.Now().Add(10 * time.Second)
	for b.repl.store.Applied() < from+10 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	stopReplica(t, b)
	if last := lastSeq(t, ns.ClientURL()); b.repl.store.Applied() >= last {
		t.Skipf("b applied the whole backlog (%d) before it stopped", last)
	}
	b = startReplica(t, replConfig(t, ns.ClientURL(), homeB, 1))
	for i := range 3 {
		learn(t, a, fmt.Sprintf("After b's restart, fact %d.", i))
	}
	caughtUp(t, b, lastSeq(t, ns.ClientURL()))
	if ca, cb := contents(t, a), contents(t, b); !slices.Equal(ca, cb) {
		t.Fatalf("after the restart b holds %d items, a %d", len(cb), len(ca))
	}
}

// deleteStream deletes the memory stream, as an operator's mistake or a
// NATS server that lost its storage would.
func deleteStream(tb testing.TB, url string) {
	tb.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		tb.Fatal(err)
	}
	defer nc.Close()
	j, _ := js.New(nc)
	if err := j.DeleteStream(context.Background(), jetstream.Stream); err != nil {
		tb.Fatal(err)
	}
}

// When the stream is lost and made again, its sequences start over below
// what the replicas applied. A write numbered like one a replica already
// holds would be skipped there while its writer was told it is stored:
// the writer refuses it instead, and a replica that starts on such a
// stream continues its numbering after what the replica holds.
func TestLostStreamNeverSwallowsAWrite(t *testing.T) {
	ns := mustJetStream(t)
	home := t.TempDir()
	a := startReplica(t, replConfig(t, ns.ClientURL(), home, 1))
	for i := range 5 {
		learn(t, a, fmt.Sprintf("Before the stream was lost, fact %d.", i))
	}
	deleteStream(t, ns.ClientURL())
	// Another replica starting makes the stream again, from sequence 1.
	c := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	res, err := a.domain.Learn(context.Background(), memory.LearnParams{Text: "Written after the stream was made again."}, contract.CallContext{Source: "mcp:test"})
	if err == nil {
		if _, ierr := a.store.Item(context.Background(), res.ID, nil); ierr != nil {
			t.Fatalf("learn answered %+v, but the replica does not hold it: %v", res, ierr)
		}
	} else if !strings.Contains(err.Error(), "went back") {
		t.Fatalf("learn on a stream that went back: %v", err)
	}
	stopReplica(t, c)

	// Lost again, and this time a replica with a store starts first.
	stopReplica(t, a)
	deleteStream(t, ns.ClientURL())
	a = startReplica(t, replConfig(t, ns.ClientURL(), home, 1))
	before := a.repl.store.Applied()
	res = learn(t, a, "Written after the replica with a store made the stream again.")
	if res.Seq <= before {
		t.Fatalf("a new write got seq %d, at or below the %d the replica had applied", res.Seq, before)
	}
	if _, err := a.store.Item(context.Background(), res.ID, nil); err != nil {
		t.Fatalf("the replica does not hold the learn it answered: %v", err)
	}
}

// A learning sent again while it is being forgotten either survives the
// forget (the learn came after) or leaves no text in the stream: never
// forgotten on every replica while the stream still holds it.
func TestForgetRacingALearnLeavesNoTextBehind(t *testing.T) {
	ns := mustJetStream(t)
	a := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	b := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	stream := mustStream(t, ns.ClientURL())
	ctx := context.Background()
	cc := contract.CallContext{Source: "cli"}
	for i := range 40 {
		text := fmt.Sprintf("Racing secret %d: the vault word is quillfeather%d.", i, i)
		first := learn(t, a, text)
		caughtUp(t, b, first.Seq)
		done := make(chan error, 1)
		go func() {
			_, err := a.domain.Learn(ctx, memory.LearnParams{Text: text}, contract.CallContext{Source: "mcp:test"})
			done <- err
		}()
		if _, err := b.domain.Forget(ctx, memory.ForgetParams{IDs: []string{first.ID}}, cc); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		last := lastSeq(t, ns.ClientURL())
		caughtUp(t, a, last)
		caughtUp(t, b, last)
		if _, err := a.store.Item(ctx, first.ID, nil); err == nil {
			continue // the learn came after the forget
		}
		// Forgotten: no message of the stream may hold the text.
		phrase := fmt.Sprintf("quillfeather%d", i)
		if msg, err := stream.GetLastMsgForSubject(ctx, jetstream.Prefix+".item."+first.ID); err == nil {
			t.Fatalf("round %d: forgotten on every replica, but stream message %d still holds %q: %s", i, msg.Sequence, phrase, msg.Data)
		}
	}
}

// A whole file as large as a request may carry is stored through the
// stream even on a NATS server with the default 1 MiB payload limit: its
// event, the file's chunks with their metadata in JSON, is larger than the
// file.
func TestLargestWholeFileFitsTheStream(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, JetStream: true, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	a := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	b := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	var doc strings.Builder
	for i := 0; doc.Len() < 900<<10; i++ {
		fmt.Fprintf(&doc, "<tr><td>Row %d</td><td>Kestrel & Osprey Ltd.</td><td>Invoice <b>%d</b> for Berlin, Paris & Rome</td></tr>\n", i, i*7)
	}
	res, err := a.domain.Ingest(context.Background(), memory.IngestParams{Files: []contract.IngestFile{{SourceID: "/exports/invoices.html",
		SourceKind: "file", Content: doc.String(), Language: "html"}}}, contract.CallContext{Source: "cli"})
	if err != nil {
		t.Fatalf("ingesting a %d-byte file: %v", doc.Len(), err)
	}
	if f := res.Files[0]; f.Status != contract.IngestStored || f.Chunks == 0 {
		t.Fatalf("ingest = %+v", f)
	}
	caughtUp(t, b, res.Seq)
	if ca, cb := contents(t, a), contents(t, b); len(ca) != res.Files[0].Chunks || !slices.Equal(ca, cb) {
		t.Fatalf("a holds %d items, b %d, the file has %d chunks", len(ca), len(cb), res.Files[0].Chunks)
	}
	again, err := b.domain.Ingest(context.Background(), memory.IngestParams{Files: []contract.IngestFile{{SourceID: "/exports/invoices.html",
		SourceKind: "file", Content: doc.String(), Language: "html"}}}, contract.CallContext{Source: "cli"})
	if err != nil || again.Files[0].Status != contract.IngestUnchanged {
		t.Fatalf("the same file again = %+v, %v; want unchanged", again, err)
	}
}

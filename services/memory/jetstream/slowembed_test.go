package jetstream

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// heldEmbedder embeds nothing until released: the slowest embedder there
// is. Each call announces itself on entered.
type heldEmbedder struct {
	release  chan struct{}
	entered  chan struct{}
	returned atomic.Int64
}

func newHeldEmbedder() *heldEmbedder {
	return &heldEmbedder{release: make(chan struct{}), entered: make(chan struct{}, 64)}
}

func (e *heldEmbedder) Model() string { return "held-test" }

func (e *heldEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case e.entered <- struct{}{}:
	default:
	}
	defer e.returned.Add(1)
	select {
	case <-e.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0, 0, 0}
	}
	return out, nil
}

// following is a replica with its domain service, its embedding worker
// and its follower running until stop.
type following struct {
	in   *sqlite.Store
	st   *Store
	svc  *memory.Service
	stop func()
}

// startFollowing opens the replica's store at path and runs it. The
// follower tells the domain of new items as the wiring does (Wake), by a
// callback that then waits as long as the embedder does: were it called
// from the loop applying the stream, no later event would be applied.
func startFollowing(tb testing.TB, j *Journal, path string, emb memory.Embedder) *following {
	tb.Helper()
	in := sqlite.New(path)
	if err := in.Open(); err != nil {
		tb.Fatal(err)
	}
	_, applied, err := in.Replica(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	st := NewStore(j, in, applied)
	svc := memory.NewService(st, &memory.Options{Embedder: emb, InlineTimeout: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	slowTell := func(ctx context.Context) {
		svc.Wake(ctx)
		if e, ok := emb.(*heldEmbedder); ok {
			select {
			case <-e.release:
			case <-ctx.Done():
			}
		}
	}
	f := j.NewFollower("slow", st, FollowOptions{NewItems: slowTell})
	followed, worked := make(chan struct{}), make(chan struct{})
	go func() { defer close(followed); _ = f.Run(ctx) }()
	go func() { defer close(worked); svc.Run(ctx) }()
	r := &following{in: in, st: st, svc: svc}
	var once atomic.Bool
	r.stop = func() {
		if once.Swap(true) {
			return
		}
		cancel()
		<-followed
		<-worked
		in.Close()
	}
	tb.Cleanup(r.stop)
	select {
	case <-f.CaughtUp():
	case <-time.After(20 * time.Second):
		tb.Fatal("the follower did not catch up")
	}
	return r
}

// A write is applied while the embedder of an earlier one has not
// answered: embedding follows the stream by signal and holds no event up.
// Every write acknowledged before a restart, by the replica or by the
// stream alone, is in the store after it, and is embedded then.
func TestSlowEmbedderHoldsNoWriteUp(t *testing.T) {
	j := mustJournal(t)
	path := filepath.Join(t.TempDir(), "memory.db")
	emb := newHeldEmbedder()
	r := startFollowing(t, j, path, emb)

	put := func(st *Store, text string) (memory.Item, uint64) {
		t.Helper()
		// A deadline, so that a follower held by the embedder fails the
		// write instead of hanging the test.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		it := note(text)
		w, err := st.Put(ctx, []memory.Item{it})
		if err != nil {
			t.Fatalf("put %q while the embedder is held: %v", text, err)
		}
		return it, w.Seq
	}
	var acked []memory.Item
	first, _ := put(r.st, "The first note, which the embedder holds.")
	acked = append(acked, first)
	select {
	case <-emb.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the embedder was never asked")
	}
	for i := range 5 {
		it, _ := put(r.st, fmt.Sprintf("Note %d, written while the embedder is held.", i))
		acked = append(acked, it)
	}
	if n := emb.returned.Load(); n != 0 {
		t.Fatalf("the embedder answered %d times; the writes should have been applied while it was held", n)
	}
	for _, it := range acked {
		if !holds(t, r.in, it.ID) {
			t.Errorf("%q is not in the replica's store", it.Text)
		}
	}

	// Restart, the embedder still held; meanwhile the stream takes two
	// more writes that no replica has applied yet.
	r.stop()
	for i := range 2 {
		it, _ := appendNote(t, j, fmt.Sprintf("Note %d, written while the replica was down.", i))
		acked = append(acked, it)
	}
	close(emb.release)
	again := startFollowing(t, j, path, emb)
	for _, it := range acked {
		if !holds(t, again.in, it.ID) {
			t.Errorf("%q, acknowledged before the restart, is not in the store after it", it.Text)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		n, err := again.in.CountUnembedded(context.Background(), emb.Model(), 0)
		if err == nil && n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d items still without a vector after the restart (%v)", n, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

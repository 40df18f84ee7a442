package memory_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// remoteEmbedder stands in for an embedding server that can go down: the
// hash embedder's vectors under another model name.
type remoteEmbedder struct {
	model string
	down  atomic.Bool
	calls atomic.Int32
}

func (r *remoteEmbedder) Model() string { return r.model }

func (r *remoteEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	r.calls.Add(1)
	if r.down.Load() {
		return nil, contract.Errorf(contract.CodeUnavailable, "embedding server at http://127.0.0.1:1 refused the connection")
	}
	return localembed.NewHashEmbedder(64).Embed(ctx, texts)
}

func mustOpenStoreAt(tb testing.TB, path string) *sqlite.Store {
	tb.Helper()
	st := sqlite.New(path)
	if err := st.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

func runInBackground(t *testing.T, svc *memory.Service) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); svc.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestEmbedderDownNeverBlocksWrites(t *testing.T) {
	st := mustOpenStoreAt(t, filepath.Join(t.TempDir(), "m.db"))
	emb := &remoteEmbedder{model: "remote-a"}
	emb.down.Store(true)
	svc := memory.NewService(st, &memory.Options{Embedder: emb, InlineTimeout: 50 * time.Millisecond})
	ctx := context.Background()
	if _, err := svc.Learn(ctx, memory.LearnParams{Text: "The backup job runs at 02:00 UTC."}, cursor); err != nil {
		t.Fatalf("a down embedder blocked a write: %v", err)
	}
	res, err := svc.Fetch(ctx, memory.FetchParams{Query: "backup job"}, anyone)
	if err != nil || len(res.Hits) != 1 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "keyword only") {
		t.Fatalf("hybrid with the vector leg down: %+v %v", res, err)
	}
	if _, err := svc.Fetch(ctx, memory.FetchParams{Query: "backup job", Mode: "vector"}, anyone); contract.ErrorCode(err) != contract.CodeUnavailable {
		t.Fatalf("vector mode with nothing embedded: %v", err)
	}
	// The server comes back: the background worker embeds what was missed.
	runInBackground(t, svc)
	emb.down.Store(false)
	waitUntil(t, "the item gets its vector", func() bool {
		res, err := svc.Fetch(ctx, memory.FetchParams{Query: "bakup jobs", Mode: "vector"}, anyone)
		return err == nil && len(res.Hits) == 1
	})
}

func TestModelChangeReembeds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	st := mustOpenStoreAt(t, path)
	ctx := context.Background()
	old := memory.NewService(st, &memory.Options{Embedder: &remoteEmbedder{model: "model-a"}})
	for _, text := range []string{"Invoices are sent on the first of the month.", "The VPN needs a hardware key."} {
		if _, err := old.Learn(ctx, memory.LearnParams{Text: text}, cursor); err != nil {
			t.Fatal(err)
		}
	}
	// Same database, new model: its vectors are not mixed with model-a's.
	emb := &remoteEmbedder{model: "model-b"}
	svc := memory.NewService(st, &memory.Options{Embedder: emb})
	if _, err := svc.Fetch(ctx, memory.FetchParams{Query: "invoices", Mode: "vector"}, anyone); contract.ErrorCode(err) != contract.CodeUnavailable {
		t.Fatalf("model-b searched model-a's vectors: %v", err)
	}
	if res, _ := svc.Fetch(ctx, memory.FetchParams{Query: "invoices"}, anyone); len(res.Hits) != 1 {
		t.Fatalf("keyword leg must keep working during the re-embed: %+v", res)
	}
	runInBackground(t, svc)
	waitUntil(t, "re-embedding under model-b", func() bool {
		todo, err := st.Unembedded(ctx, "model-b", 0, 10)
		return err == nil && len(todo) == 0
	})
	if res, err := svc.Fetch(ctx, memory.FetchParams{Query: "invoice", Mode: "vector"}, anyone); err != nil || len(res.Hits) == 0 || !strings.HasPrefix(res.Hits[0].Text, "Invoices") {
		t.Fatalf("vector search under model-b: %+v %v", res, err)
	}
	waitUntil(t, "model-a's vectors dropped", func() bool {
		n, _ := st.DropVectorsExcept(ctx, "model-b")
		return n == 0
	})
}

func TestForgottenItemsLeaveTheVectorLeg(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	id := learn(t, svc, "The spare office key is under the blue flowerpot.")
	learn(t, svc, "The garden hose is in the shed.")
	if res, _ := svc.Fetch(ctx, memory.FetchParams{Query: "flowerpot key", Mode: "vector"}, anyone); len(res.Hits) == 0 || res.Hits[0].ID != id {
		t.Fatalf("before forget: %+v", res)
	}
	if _, err := svc.Forget(ctx, memory.ForgetParams{IDs: []string{id}}, anyone); err != nil {
		t.Fatal(err)
	}
	res, _ := svc.Fetch(ctx, memory.FetchParams{Query: "flowerpot key", Mode: "vector"}, anyone)
	for _, h := range res.Hits {
		if h.ID == id {
			t.Fatal("a forgotten item is still found by the vector leg")
		}
	}
}

// Another process writing to the same file is seen by this one's index.
func TestVectorIndexFollowsOtherWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	a := memory.NewService(mustOpenStoreAt(t, path), &memory.Options{Embedder: localembed.NewGloveEmbedder(0)})
	b := memory.NewService(mustOpenStoreAt(t, path), &memory.Options{Embedder: localembed.NewGloveEmbedder(0)})
	ctx := context.Background()
	learn(t, a, "Quarterly planning happens in the second week of March.")
	if res, _ := b.Fetch(ctx, memory.FetchParams{Query: "quartely planing", Mode: "vector"}, anyone); len(res.Hits) != 1 {
		t.Fatalf("b does not see a's vector: %+v", res)
	}
	learn(t, b, "The offsite is in Lisbon this year.")
	if res, _ := a.Fetch(ctx, memory.FetchParams{Query: "lisbon offsite", Mode: "vector"}, anyone); len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Text, "Lisbon") {
		t.Fatalf("a does not see b's vector: %+v", res)
	}
}

// The keyword index follows another process's writes and forgets too, and
// ranks with filters applied.
func TestKeywordIndexFollowsOtherWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	a := memory.NewService(mustOpenStoreAt(t, path), &memory.Options{Embedder: localembed.NewGloveEmbedder(0)})
	b := memory.NewService(mustOpenStoreAt(t, path), &memory.Options{Embedder: localembed.NewGloveEmbedder(0)})
	ctx := context.Background()
	keyword := func(svc *memory.Service, q string, f *memory.Filter) []string {
		t.Helper()
		res, err := svc.Fetch(ctx, memory.FetchParams{Query: q, Mode: "keyword", Filter: f}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range res.Hits {
			out = append(out, h.ID)
		}
		return out
	}
	if got := keyword(b, "anything", nil); len(got) != 0 {
		t.Fatalf("empty memory found %v", got)
	}
	first := learn(t, a, "The billing export runs nightly.")
	if got := keyword(b, "billing exports", nil); len(got) != 1 || got[0] != first {
		t.Fatalf("b does not see a's item: %v", got)
	}
	second := learn(t, b, "Billing owners are Ana and Raj.")
	if got := keyword(a, "billing", nil); len(got) != 2 {
		t.Fatalf("a does not see b's item: %v", got)
	}
	if got := keyword(b, "billing", nil); len(got) != 2 {
		t.Fatalf("b does not see its own item: %v", got)
	}
	if got := keyword(a, "billing", &memory.Filter{Kinds: []string{"conversation"}}); len(got) != 0 {
		t.Fatalf("a filter that passes nothing still ranked %v", got)
	}
	if _, err := a.Forget(ctx, memory.ForgetParams{IDs: []string{second}}, anyone); err != nil {
		t.Fatal(err)
	}
	if got := keyword(b, "owners billing", nil); len(got) != 1 || got[0] != first {
		t.Fatalf("b still ranks what a forgot: %v", got)
	}
	// The index itself lets go, not just the read that follows a ranking
	// (a newer item keeps the forgotten one below the newest seq).
	learn(t, a, "Lunch is at noon.")
	if res, err := b.TreeSearch(ctx, memory.TreeQuery{Query: "owners"}, anyone); err != nil || res.Total != 0 {
		t.Fatalf("b's index still counts the forgotten item: %+v, %v", res, err)
	}
}

// A process that starts on a memory file builds its indexes in the
// background, before anyone searches.
func TestRunBuildsIndexesBeforeTheFirstSearch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	writer := memory.NewService(mustOpenStoreAt(t, path), &memory.Options{Embedder: localembed.NewGloveEmbedder(0)})
	for i := 0; i < 20; i++ {
		learn(t, writer, fmt.Sprintf("Note %d about the quarterly offsite.", i))
	}
	svc := memory.NewService(mustOpenStoreAt(t, path), &memory.Options{Embedder: localembed.NewGloveEmbedder(0)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); svc.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	deadline := time.Now().Add(10 * time.Second)
	for !memory.IndexesBuilt(svc, 20) {
		if time.Now().After(deadline) {
			t.Fatal("the indexes were not built without a search")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A memory embedded by the plain hash embedder (hash-v1, the default
// before the GloVe embedder) opened with another offline embedder, the
// default the wiring picks (provider hash-glove) or concepts (provider hash-wordnet): the
// background worker re-embeds every item, the vector leg then searches
// the new vectors, and the old ones are dropped.
func TestHashReembeds(t *testing.T) {
	for name, next := range map[string]memory.Embedder{"default": localembed.NewGloveEmbedder(0), "hash-wordnet": &localembed.HashEmbedder{Dim: 256, Concepts: true}} {
		t.Run(name, func(t *testing.T) { testReembedsFromHash(t, next) })
	}
}

func testReembedsFromHash(t *testing.T, next memory.Embedder) {
	path := filepath.Join(t.TempDir(), "m.db")
	st := mustOpenStoreAt(t, path)
	ctx := context.Background()
	old := memory.NewService(st, &memory.Options{Embedder: localembed.NewHashEmbedder(0)})
	texts := []string{"The brand uses two fonts, both sans serif.", "The car is parked in the garage.", "Lunch is at noon."}
	for i := 0; i < 200; i++ { // more than one background batch
		texts = append(texts, fmt.Sprintf("Filler note %d about nothing in particular.", i))
	}
	for _, text := range texts {
		if _, err := old.Learn(ctx, memory.LearnParams{Text: text}, cursor); err != nil {
			t.Fatal(err)
		}
	}
	if todo, _ := st.Unembedded(ctx, "hash-v1-256", 0, 1); len(todo) != 0 {
		t.Fatal("the old model did not embed its items")
	}

	svc := memory.NewService(st, &memory.Options{Embedder: next})
	model := next.Model()
	runInBackground(t, svc)
	waitUntil(t, "every item re-embedded under "+model, func() bool {
		todo, err := st.Unembedded(ctx, model, 0, 1)
		return err == nil && len(todo) == 0
	})
	res, err := svc.Fetch(ctx, memory.FetchParams{Query: "the automobile is parked in the garage", Mode: "vector", Limit: 1}, anyone)
	if err != nil || len(res.Hits) != 1 || !strings.Contains(res.Hits[0].Text, "car") {
		t.Fatalf("vector search under %s: %+v %v", model, res, err)
	}
	waitUntil(t, "hash-v1's vectors dropped", func() bool {
		n, err := st.DropVectorsExcept(ctx, model)
		todo, _ := st.Unembedded(ctx, "hash-v1-256", 0, 1)
		return err == nil && n == 0 && len(todo) == 1
	})
}

// heldEmbedder answers nothing until released, or its caller gives up.
type heldEmbedder struct {
	release chan struct{}
	entered chan struct{}
}

func (h *heldEmbedder) Model() string { return "held" }

func (h *heldEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case h.entered <- struct{}{}:
	default:
	}
	select {
	case <-h.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return localembed.NewHashEmbedder(64).Embed(ctx, texts)
}

// While the background worker waits on a stalled embedder, a write's own
// embedding gives up at its deadline instead of queueing behind it.
func TestAStalledWorkerHoldsNoWriteUp(t *testing.T) {
	st := mustOpenStoreAt(t, filepath.Join(t.TempDir(), "m.db"))
	emb := &heldEmbedder{release: make(chan struct{}), entered: make(chan struct{}, 16)}
	t.Cleanup(func() { close(emb.release) })
	svc := memory.NewService(st, &memory.Options{Embedder: emb, InlineTimeout: 50 * time.Millisecond})
	runInBackground(t, svc)
	ctx := context.Background()
	learnBy := func(text string) {
		t.Helper()
		done := make(chan error, 1)
		go func() { _, err := svc.Learn(ctx, memory.LearnParams{Text: text}, cursor); done <- err }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("learning %q waits for the stalled embedder", text)
		}
	}
	// The first write's inline embedding gives up and wakes the worker,
	// which then waits on the embedder for as long as it takes.
	learnBy("The boiler was serviced in March.")
	for range 2 {
		select {
		case <-emb.entered:
		case <-time.After(20 * time.Second):
			t.Fatal("the embedder was not asked by both the write and the worker")
		}
	}
	learnBy("The boiler's warranty ends next year.")
}

package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

func mustOpenStore(tb testing.TB, path string) *sqlite.Store {
	tb.Helper()
	if path == "" {
		path = filepath.Join(tb.TempDir(), "memory.db")
	}
	s := sqlite.New(path)
	if err := s.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func item(text string, mod func(*memory.Item)) memory.Item {
	it := memory.Item{Kind: "learning", LearningKind: "fact", Text: text, Source: "agent", Provenance: "mcp:test",
		ObservedAt: t0, CreatedAt: t0}
	if mod != nil {
		mod(&it)
	}
	it.ID = memory.Fingerprint(it)
	return it
}

func put(tb testing.TB, s *sqlite.Store, items ...memory.Item) {
	tb.Helper()
	for _, it := range items {
		if _, err := s.Put(context.Background(), []memory.Item{it}); err != nil {
			tb.Fatal(err)
		}
	}
}

func TestPutReplay(t *testing.T) {
	s := mustOpenStore(t, "")
	ctx := context.Background()
	it := item("The user prefers tabs.", nil)
	if w, err := s.Put(ctx, []memory.Item{it}); err != nil || w.Replayed[0] {
		t.Fatalf("first put: replayed=%v err=%v", w.Replayed, err)
	}
	if w, err := s.Put(ctx, []memory.Item{it, item("another", nil), it}); err != nil || !w.Replayed[0] || w.Replayed[1] || !w.Replayed[2] {
		t.Fatalf("second put: replayed=%v err=%v", w.Replayed, err)
	}
	items, err := s.List(ctx, nil, 0, 10)
	if err != nil || len(items) != 2 {
		t.Fatalf("%d items, %v", len(items), err)
	}
}

func TestListNewestFirstBefore(t *testing.T) {
	s := mustOpenStore(t, "")
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		put(t, s, item(fmt.Sprintf("note %d", i), nil))
	}
	all, err := s.List(ctx, nil, 0, 10)
	if err != nil || len(all) != 5 || all[0].Text != "note 4" || all[4].Text != "note 0" {
		t.Fatalf("%v %v", all, err)
	}
	older, err := s.List(ctx, nil, all[1].Seq, 10)
	if err != nil || len(older) != 3 || older[0].Text != "note 2" {
		t.Fatalf("before %d: %v %v", all[1].Seq, older, err)
	}
	if m, _ := s.Marks(ctx); m.Items != all[0].Seq {
		t.Errorf("Marks().Items %d, newest %d", m.Items, all[0].Seq)
	}
}

// TestItemChanges follows the store the way the service's in-memory
// indexes do: everything once, then only what changed.
func TestItemChanges(t *testing.T) {
	s := mustOpenStore(t, "")
	ctx := context.Background()
	a, b := item("first note", nil), item("second note", nil)
	c := item("third note", func(it *memory.Item) { it.LearningKind = "correction" })
	put(t, s, a, b)
	var added []string
	var removed []int64
	add := func(c memory.ItemChange) {
		added = append(added, fmt.Sprintf("%d:%s:%s", c.Seq, c.Text, c.LearningKind))
	}
	remove := func(seq int64) { removed = append(removed, seq) }
	addMark, delMark, err := s.ItemChanges(ctx, 0, 0, add, remove)
	if err != nil || fmt.Sprint(added) != "[1:first note:fact 2:second note:fact]" || len(removed) != 0 {
		t.Fatalf("from the start: added %v removed %v, %v", added, removed, err)
	}
	added = nil
	if addMark2, delMark2, err := s.ItemChanges(ctx, addMark, delMark, add, remove); err != nil || added != nil || addMark2 != addMark || delMark2 != delMark {
		t.Fatalf("nothing changed, yet added %v (marks %d,%d → %d,%d), %v", added, addMark, delMark, addMark2, delMark2, err)
	}
	// Deleting the newest item lowers max(seq); the deletion log still moves.
	before, _ := s.Marks(ctx)
	if _, err := s.Delete(ctx, []string{b.ID}, nil); err != nil {
		t.Fatal(err)
	}
	if after, err := s.Marks(ctx); err != nil || after.Items != before.Items-1 || after.Deletions != before.Deletions+1 {
		t.Fatalf("marks %+v → %+v, %v", before, after, err)
	}
	if addMark, delMark, err = s.ItemChanges(ctx, addMark, delMark, add, remove); err != nil || fmt.Sprint(removed) != "[2]" || added != nil {
		t.Fatalf("after a delete: added %v removed %v, %v", added, removed, err)
	}
	put(t, s, c)
	if _, _, err = s.ItemChanges(ctx, addMark, delMark, add, remove); err != nil || fmt.Sprint(added) != "[3:third note:correction]" || len(removed) != 1 {
		t.Fatalf("after a put: added %v removed %v, %v", added, removed, err)
	}
}

func TestFilters(t *testing.T) {
	s := mustOpenStore(t, "")
	ctx := context.Background()
	put(t, s,
		item("alpha plain", nil),
		item("alpha workspace", func(it *memory.Item) {
			it.Kind, it.LearningKind, it.Source = "document", "", "file"
			it.Meta = memory.Meta{Workspace: "acme", Folder: "docs", FilePath: "docs/a.md", Language: "markdown",
				Repo: "acme/web", Commit: "abc123", URL: "https://acme.test/a", ThreadID: "t1", AgentID: "librarian"}
			it.Tags = []string{"design", "q3"}
			it.ObservedAt = t0.Add(48 * time.Hour)
		}),
		item("alpha conversation", func(it *memory.Item) {
			it.Kind, it.LearningKind, it.Source = "conversation", "", "conversation"
			it.Meta.ThreadID = "t2"
			it.Tags = []string{"q4"}
			it.ObservedAt = t0.Add(-48 * time.Hour)
		}),
	)
	after, before := t0.Add(time.Hour), t0
	for _, tc := range []struct {
		name string
		f    memory.Filter
		want []string
	}{
		{"workspace", memory.Filter{Meta: memory.Meta{Workspace: "acme"}}, []string{"alpha workspace"}},
		{"folder", memory.Filter{Meta: memory.Meta{Folder: "docs"}}, []string{"alpha workspace"}},
		{"file_path", memory.Filter{Meta: memory.Meta{FilePath: "docs/a.md"}}, []string{"alpha workspace"}},
		{"language", memory.Filter{Meta: memory.Meta{Language: "markdown"}}, []string{"alpha workspace"}},
		{"repo", memory.Filter{Meta: memory.Meta{Repo: "acme/web"}}, []string{"alpha workspace"}},
		{"commit", memory.Filter{Meta: memory.Meta{Commit: "abc123"}}, []string{"alpha workspace"}},
		{"url", memory.Filter{Meta: memory.Meta{URL: "https://acme.test/a"}}, []string{"alpha workspace"}},
		{"thread_id", memory.Filter{Meta: memory.Meta{ThreadID: "t2"}}, []string{"alpha conversation"}},
		{"agent_id", memory.Filter{Meta: memory.Meta{AgentID: "librarian"}}, []string{"alpha workspace"}},
		{"kinds", memory.Filter{Kinds: []string{"learning", "conversation"}}, []string{"alpha conversation", "alpha plain"}},
		{"sources", memory.Filter{Sources: []string{"file"}}, []string{"alpha workspace"}},
		{"tags_any", memory.Filter{TagsAny: []string{"q4", "nope"}}, []string{"alpha conversation"}},
		{"observed_after", memory.Filter{ObservedAfter: &after}, []string{"alpha workspace"}},
		{"observed_before", memory.Filter{ObservedBefore: &before}, []string{"alpha conversation"}},
		{"combined, no match", memory.Filter{Meta: memory.Meta{Workspace: "acme"}, Kinds: []string{"learning"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items, err := s.List(ctx, &tc.f, 0, 10)
			if err != nil {
				t.Fatal(err)
			}
			m, _ := s.Marks(ctx)
			matching, err := s.Matching(ctx, &tc.f, m.Items)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range items {
				got = append(got, it.Text)
			}
			if len(matching) != len(tc.want) {
				t.Errorf("matching: %d seqs, want %d", len(matching), len(tc.want))
			}
			for i := 1; i < len(matching); i++ {
				if matching[i] <= matching[i-1] {
					t.Errorf("matching not ascending: %v", matching)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("list: got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDeleteIsForGood(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	s := mustOpenStore(t, path)
	ctx := context.Background()
	secret := item("the zebracorn launch code is 4417", nil)
	keep := item("the weather was fine", nil)
	put(t, s, secret, keep)
	w, err := s.Delete(ctx, []string{secret.ID, "0000000000000000"}, nil)
	missing := w.Missing
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) != 1 || missing[0] != "0000000000000000" {
		t.Errorf("missing = %v", missing)
	}
	var texts []string
	if _, _, err := s.ItemChanges(ctx, 0, 0, func(c memory.ItemChange) { texts = append(texts, c.Text) }, func(int64) {}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(texts) != "[the weather was fine]" {
		t.Errorf("items after forgetting: %q", texts)
	}
	s.Close()
	sqlite.AssertGone(t, path, "zebracorn")
}

// Two stores on one file stand in for two processes here; the gateway's
// tests run two real processes.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	stores := []*sqlite.Store{mustOpenStore(t, path), mustOpenStore(t, path)}
	const each = 200
	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	for w, s := range stores {
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := g; i < each; i += 4 {
					if _, err := s.Put(context.Background(), []memory.Item{item(fmt.Sprintf("writer %d item %d", w, i), nil)}); err != nil {
						errs <- err
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	items, err := stores[0].List(context.Background(), nil, 0, 10*each)
	if err != nil {
		t.Fatal(err)
	}
	n := len(items)
	if n != 2*each {
		t.Fatalf("%d items stored, want %d", n, 2*each)
	}
}

func TestOpenRejectsNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	s := mustOpenStore(t, path)
	s.Close()
	raw := sqlite.New(path)
	if err := raw.Open(); err != nil {
		t.Fatal(err)
	}
	if err := raw.SetUserVersion(99); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if err := sqlite.New(path).Open(); err == nil {
		t.Fatal("opened a database from the future")
	}
}

// Lookups skip the driver's cancellation watcher, but a caller that has
// already given up is still refused.
func TestLookupRefusesADoneContext(t *testing.T) {
	s := mustOpenStore(t, "")
	put(t, s, item("a note", nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Marks(ctx); err == nil {
		t.Error("Marks answered for a cancelled context")
	}
	if _, err := s.Items(ctx, []int64{1}); err == nil {
		t.Error("Items answered for a cancelled context")
	}
	if m, err := s.Marks(context.Background()); err != nil || m.Items != 1 {
		t.Errorf("marks %+v, %v", m, err)
	}
}

package sqlite_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
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
		if _, err := s.Put(context.Background(), it); err != nil {
			tb.Fatal(err)
		}
	}
}

func TestPutReplay(t *testing.T) {
	s := mustOpenStore(t, "")
	ctx := context.Background()
	it := item("The user prefers tabs.", nil)
	if replayed, err := s.Put(ctx, it); err != nil || replayed {
		t.Fatalf("first put: replayed=%v err=%v", replayed, err)
	}
	if replayed, err := s.Put(ctx, it); err != nil || !replayed {
		t.Fatalf("second put: replayed=%v err=%v", replayed, err)
	}
	items, _, err := s.List(ctx, nil, memory.Page{Limit: 10})
	if err != nil || len(items) != 1 {
		t.Fatalf("%d items, %v", len(items), err)
	}
}

func TestListPagesNewestFirst(t *testing.T) {
	s := mustOpenStore(t, "")
	ctx := context.Background()
	for i := 0; i < 25; i++ {
		put(t, s, item(fmt.Sprintf("note %02d", i), nil))
	}
	var got []string
	cursor := ""
	for page := 0; ; page++ {
		items, next, err := s.List(ctx, nil, memory.Page{Limit: 10, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			got = append(got, it.Text)
		}
		if page == 1 {
			put(t, s, item("written while paging", nil)) // must not shift later pages
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if len(got) != 25 || got[0] != "note 24" || got[24] != "note 00" {
		t.Fatalf("got %d items: first %q last %q", len(got), got[0], got[len(got)-1])
	}
	for i := 1; i < len(got); i++ {
		if got[i] == got[i-1] {
			t.Fatalf("repeated %q", got[i])
		}
	}
}

func TestCursorMisuse(t *testing.T) {
	s := mustOpenStore(t, "")
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		put(t, s, item(fmt.Sprintf("alpha %d", i), nil))
	}
	_, next, err := s.List(ctx, nil, memory.Page{Limit: 1})
	if err != nil || next == "" {
		t.Fatal(next, err)
	}
	for name, tc := range map[string]struct {
		cursor string
		f      *memory.Filter
	}{
		"garbage":      {"%%%not-a-cursor", nil},
		"other filter": {next, &memory.Filter{Kinds: []string{"document"}}},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := s.List(ctx, tc.f, memory.Page{Limit: 1, Cursor: tc.cursor})
			if contract.ErrorCode(err) != contract.CodeInvalidRequest {
				t.Fatalf("got %v", err)
			}
		})
	}
	_, searchNext, err := s.Search(ctx, []string{"alpha"}, nil, memory.Page{Limit: 1})
	if err != nil || searchNext == "" {
		t.Fatal(searchNext, err)
	}
	if _, _, err := s.Search(ctx, []string{"beta"}, nil, memory.Page{Limit: 1, Cursor: searchNext}); contract.ErrorCode(err) != contract.CodeInvalidRequest {
		t.Fatalf("cursor of another query accepted: %v", err)
	}
}

func TestSearch(t *testing.T) {
	s := mustOpenStore(t, "")
	ctx := context.Background()
	put(t, s,
		item("We retained the old billing service for one more quarter.", nil),
		item("Deploys go out on Tuesdays after the standup.", nil),
		item("The billing service billing export runs nightly; billing owners are Ana and Raj.", nil),
		item("Lunch is at noon.", nil), item("The office plant needs water.", nil), item("Use UTC in logs.", nil),
	)
	t.Run("stemming", func(t *testing.T) {
		got, _, err := s.Search(ctx, []string{"retaining"}, nil, memory.Page{Limit: 10})
		if err != nil || len(got) != 1 || got[0].Text[:11] != "We retained" {
			t.Fatalf("got %v, %v", got, err)
		}
	})
	t.Run("bm25 order and positive scores", func(t *testing.T) {
		got, _, err := s.Search(ctx, []string{"billing"}, nil, memory.Page{Limit: 10})
		if err != nil || len(got) != 2 {
			t.Fatalf("got %d hits, %v", len(got), err)
		}
		if got[0].Text[:11] != "The billing" || got[0].Score <= got[1].Score || got[1].Score <= 0 {
			t.Errorf("order/scores: %q %.4f, %q %.4f", got[0].Text, got[0].Score, got[1].Text, got[1].Score)
		}
	})
	t.Run("fts syntax in terms is literal", func(t *testing.T) {
		for _, term := range []string{`"`, `billing"`, `NEAR(`, `*`, `OR`, `-x`} {
			if _, _, err := s.Search(ctx, []string{term}, nil, memory.Page{Limit: 10}); err != nil {
				t.Errorf("term %q: %v", term, err)
			}
		}
	})
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
			items, _, err := s.List(ctx, &tc.f, memory.Page{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			hits, _, err := s.Search(ctx, []string{"alpha"}, &tc.f, memory.Page{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			var got, gotSearch []string
			for _, it := range items {
				got = append(got, it.Text)
			}
			for _, h := range hits {
				gotSearch = append(gotSearch, h.Text)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("list: got %q, want %q", got, tc.want)
			}
			if len(gotSearch) != len(tc.want) {
				t.Errorf("search: got %q, want %q", gotSearch, tc.want)
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
	missing, err := s.Delete(ctx, []string{secret.ID, "0000000000000000"})
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) != 1 || missing[0] != "0000000000000000" {
		t.Errorf("missing = %v", missing)
	}
	if hits, _, _ := s.Search(ctx, []string{"zebracorn"}, nil, memory.Page{Limit: 10}); len(hits) != 0 {
		t.Errorf("forgotten item still found: %v", hits)
	}
	if hits, _, _ := s.Search(ctx, []string{"weather"}, nil, memory.Page{Limit: 10}); len(hits) != 1 {
		t.Errorf("kept item lost")
	}
	s.Close()
	for _, f := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("zebracorn")) {
			t.Errorf("%s still holds the forgotten text", filepath.Base(f))
		}
	}
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
					if _, err := s.Put(context.Background(), item(fmt.Sprintf("writer %d item %d", w, i), nil)); err != nil {
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
	n := 0
	cursor := ""
	for {
		items, next, err := stores[0].List(context.Background(), nil, memory.Page{Limit: 100, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		n += len(items)
		if next == "" {
			break
		}
		cursor = next
	}
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

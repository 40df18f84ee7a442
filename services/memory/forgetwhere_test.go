package memory_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// What a folder's ingest stored is forgotten in one call, by the folder,
// a file, or the workspace: a dry run counts first and changes nothing;
// a caller limited to a workspace forgets nothing of another's; notes
// learned beside the documents stay.
func TestForgetBySourceAndWorkspace(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	var files []contract.IngestFile
	for _, f := range []struct{ path, ws string }{
		{"/home/ana/docs/guide/intro.md", "docs"}, {"/home/ana/docs/guide/setup.md", "docs"},
		{"/home/ana/docs/notes.md", "docs"}, {"/home/ana/docs-old/readme.md", "docs"},
		{"/home/ana/work/plan.md", "work"},
	} {
		files = append(files, contract.IngestFile{SourceID: f.path, SourceKind: "folder", DisplayName: f.path, Workspace: f.ws,
			Content: "# " + f.path + "\n\nA paragraph of " + f.path + " that says something worth keeping.\n"})
	}
	if _, err := svc.Ingest(ctx, memory.IngestParams{Files: files}, contract.CallContext{Source: "cli"}); err != nil {
		t.Fatal(err)
	}
	learn(t, svc, "I keep my passport in the blue drawer.")
	count := func() int {
		t.Helper()
		l, err := svc.List(ctx, memory.ListParams{Limit: 100}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		return len(l.Items)
	}
	forget := func(p memory.ForgetParams, cc contract.CallContext) *memory.ForgetResult {
		t.Helper()
		res, err := svc.Forget(ctx, p, cc)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	all := count()

	dry := forget(memory.ForgetParams{Source: "/home/ana/docs/guide/", DryRun: true}, anyone)
	if dry.Matched == nil || *dry.Matched == 0 || dry.Forgotten != 0 || count() != all {
		t.Fatalf("dry run of a folder: %+v, %d items left of %d", dry, count(), all)
	}
	guide := *dry.Matched
	if res := forget(memory.ForgetParams{Source: "/home/ana/docs/guide"}, limitedTo("work")); res.Forgotten != 0 || count() != all {
		t.Fatalf("a caller limited to another workspace forgot %+v", res)
	}
	if res := forget(memory.ForgetParams{Source: "/home/ana/docs/guide"}, anyone); res.Forgotten != guide || count() != all-guide {
		t.Fatalf("forgetting the folder: %+v, %d left of %d", res, count(), all)
	}
	// A folder is a path's prefix up to a slash: docs does not hold docs-old.
	left := count()
	res := forget(memory.ForgetParams{Source: "/home/ana/docs"}, limitedTo("docs"))
	if res.Forgotten == 0 || count() != left-res.Forgotten {
		t.Fatalf("forgetting /home/ana/docs: %+v", res)
	}
	browse, _ := svc.Browse(ctx, memory.BrowseParams{SourceIDs: []string{"/home/ana/docs-old/readme.md"}, K: 10}, anyone)
	if len(browse.Chunks) == 0 {
		t.Fatal("forgetting /home/ana/docs forgot /home/ana/docs-old too")
	}
	if res := forget(memory.ForgetParams{Workspace: "work"}, anyone); res.Forgotten == 0 {
		t.Fatalf("forgetting a workspace: %+v", res)
	}
	rest, _ := svc.List(ctx, memory.ListParams{Limit: 100}, anyone)
	var texts []string
	for _, it := range rest.Items {
		texts = append(texts, it.Text)
	}
	if got := strings.Join(texts, "|"); !strings.Contains(got, "passport") || !strings.Contains(got, "docs-old") || strings.Contains(got, "plan.md") {
		t.Fatalf("what is left: %s", got)
	}
	for _, bad := range []memory.ForgetParams{{}, {IDs: []string{"x"}, Source: "/a"}, {Source: "  "}} {
		if _, err := svc.Forget(ctx, bad, anyone); contract.ErrorCode(err) != contract.CodeInvalidRequest {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// BenchmarkForgetWorkspace forgets a workspace of 20,000 items in one
// call: a dry run's count, then the forget. Pages go by seq, so the cost
// is what the workspace holds, not its square.
func BenchmarkForgetWorkspace(b *testing.B) {
	ctx := context.Background()
	for range b.N {
		b.StopTimer()
		svc := mustOpenService(b)
		for batch := range 40 {
			items := make([]memory.Item, 500)
			for i := range items {
				items[i] = memory.Item{Kind: "learning", LearningKind: "fact", Text: fmt.Sprintf("Note %d of batch %d about nothing much.", i, batch),
					Source: "client", Provenance: "cli", Meta: memory.Meta{Workspace: "big"}}
			}
			if _, err := svc.Remember(ctx, items); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		dry, err := svc.Forget(ctx, memory.ForgetParams{Workspace: "big", DryRun: true}, anyone)
		if err != nil || *dry.Matched != 20000 {
			b.Fatalf("%+v %v", dry, err)
		}
		res, err := svc.Forget(ctx, memory.ForgetParams{Workspace: "big"}, anyone)
		if err != nil || res.Forgotten != 20000 {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

package memory_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// TestExportIsPinned: an export's pages hold the items stored when its
// first page was made, each once and oldest first, however many are
// learned while it goes on; a page never outgrows what a bus message
// carries.
func TestExportIsPinned(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	var want []string
	for i := range 5 {
		text := fmt.Sprintf("Pinned note %d.", i)
		learn(t, svc, text)
		want = append(want, text)
	}
	big := strings.Repeat("A long note of many words. ", 2400) // ~64 KiB
	for range 20 {
		want = append(want, learn(t, svc, big+fmt.Sprint(len(want))))
	}
	var got []string
	cursor, pages := "", 0
	for {
		page, err := svc.Export(ctx, memory.ExportParams{Cursor: cursor, Limit: 1000}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		size := 0
		for _, r := range page.Items {
			size += len(r.Text)
			if strings.HasPrefix(r.Text, "Pinned") {
				got = append(got, r.Text)
			} else {
				got = append(got, r.ID)
			}
		}
		if size > 1<<20 {
			t.Errorf("a page of %d bytes of text", size)
		}
		learn(t, svc, fmt.Sprintf("Learned during the export, page %d.", pages))
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("exported %q,\nwant %q", got, want)
	}
	if pages < 2 {
		t.Errorf("1.3 MB of items in %d page", pages)
	}
}

// TestImportScopedCaller: a caller limited to a workspace imports into it
// and has a record of another workspace refused, not the batch.
func TestImportScopedCaller(t *testing.T) {
	svc := mustOpenService(t)
	cc := contract.CallContext{Source: "cli", Token: "work", Workspaces: []string{"work"}}
	res, err := svc.Import(context.Background(), memory.ImportParams{Items: []contract.ExportRecord{
		{V: 1, Kind: "learning", Text: "Into the caller's one workspace."},
		{V: 1, Kind: "learning", Text: "Into another.", Meta: contract.Meta{Workspace: "home"}},
		{V: 1, Kind: "learning", Text: "Into the caller's one workspace."},
	}}, cc)
	if err != nil {
		t.Fatal(err)
	}
	st := []string{res.Results[0].Status, res.Results[1].Status, res.Results[2].Status}
	if st[0] != contract.ImportStored || st[1] != contract.ImportRefused || st[2] != contract.ImportPresent ||
		!strings.Contains(res.Results[1].Error, "not a workspace this caller may write to") {
		t.Fatalf("results %+v", res.Results)
	}
	it, err := svc.List(context.Background(), memory.ListParams{}, anyone)
	if err != nil || len(it.Items) != 1 || it.Items[0].Meta.Workspace != "work" {
		t.Errorf("stored %+v, %v", it, err)
	}
}

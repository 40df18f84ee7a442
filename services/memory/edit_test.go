package memory_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// A learning corrected in place: the old one stays, with its provenance,
// listed as superseded by the new one; fetch and recall find only the new
// one; the new one keeps the old one's workspace and kind.
func TestCorrectALearningInPlace(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	old, err := svc.Learn(ctx, memory.LearnParams{Text: "I live in Porto.", Kind: "fact", Workspace: "home"}, cursor)
	if err != nil {
		t.Fatal(err)
	}
	learn(t, svc, "My dentist is Dr. Sousa.")
	zed := contract.CallContext{Source: "mcp:zed"}
	res, err := svc.Learn(ctx, memory.LearnParams{Text: "I live in Lisbon now.", Replaces: old.ID}, zed)
	if err != nil || res.Replaces != old.ID || res.ID == old.ID {
		t.Fatalf("the correction: %+v %v", res, err)
	}
	list, err := svc.List(ctx, memory.ListParams{}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]memory.Hit{}
	for _, h := range list.Items {
		byID[h.ID] = h
	}
	was, now := byID[old.ID], byID[res.ID]
	if was.Meta.SupersededBy != res.ID || was.Meta.Provenance != "mcp:cursor" || was.Text != "I live in Porto." {
		t.Errorf("the old learning: %+v", was)
	}
	if now.Meta.SupersededBy != "" || now.Meta.Provenance != "mcp:zed" || now.Meta.Workspace != "home" || now.Meta.LearningKind != "fact" {
		t.Errorf("the new learning: %+v", now)
	}
	fetched, err := svc.Fetch(ctx, memory.FetchParams{Query: "where do I live, Porto or Lisbon?", Limit: 10}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range fetched.Hits {
		if h.ID == old.ID {
			t.Errorf("fetch still finds the superseded learning: %+v", fetched.Hits)
		}
	}
	if len(fetched.Hits) == 0 || fetched.Hits[0].ID != res.ID {
		t.Errorf("fetch does not find the correction first: %+v", fetched.Hits)
	}
	rec, err := svc.Recall(ctx, memory.RecallParams{Question: "Where do I live?"}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rec.Answer, "Porto") || !strings.Contains(rec.Answer, "Lisbon") {
		t.Errorf("recall after the correction: %q", rec.Answer)
	}

	for _, tc := range []struct {
		p    memory.LearnParams
		cc   contract.CallContext
		code contract.Code
		want string
	}{
		{memory.LearnParams{Text: "x", Replaces: "nosuchid"}, anyone, contract.CodeNotFound, "argument `replaces`"},
		{memory.LearnParams{Text: "x", Replaces: old.ID}, limitedTo("work"), contract.CodeNotFound, "may see"},
		{memory.LearnParams{Text: "x", Replaces: old.ID, Workspace: "work"}, anyone, contract.CodeInvalidRequest, "stays in the workspace"},
	} {
		if _, err := svc.Learn(ctx, tc.p, tc.cc); contract.ErrorCode(err) != tc.code || !strings.Contains(contract.ErrorMessage(err), tc.want) {
			t.Errorf("%+v as %+v: %v", tc.p, tc.cc, err)
		}
	}
}

// memory.list shows the learnings of one kind: "show me my preferences".
func TestListByLearningKind(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	for _, l := range []memory.LearnParams{
		{Text: "I take my coffee black.", Kind: "preference"},
		{Text: "Tabs, not spaces.", Kind: "preference"},
		{Text: "My dentist is Dr. Sousa.", Kind: "fact"},
	} {
		if _, err := svc.Learn(ctx, l, cursor); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.Ingest(ctx, memory.IngestParams{Files: []contract.IngestFile{{SourceID: "/notes/prefs.md", SourceKind: "file",
		DisplayName: "prefs.md", Content: "# Preferences\n\nA document about preferences.\n"}}}, cursor); err != nil {
		t.Fatal(err)
	}
	list, err := svc.List(ctx, memory.ListParams{Filter: &memory.Filter{LearningKinds: []string{"preference"}}}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, h := range list.Items {
		texts = append(texts, h.Text)
	}
	if got := strings.Join(texts, "|"); got != "Tabs, not spaces.|I take my coffee black." {
		t.Errorf("the preferences: %q", got)
	}
}

// Only a learning of the same workspace replaces a learning: an item
// stored with a first tag "replaces:<id>" by import (or a note's front
// matter) in another workspace, or one that is no learning, hides nothing
// and names nothing of the other workspace.
func TestReplacesTagOnlyWithinAWorkspace(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	home, err := svc.Learn(ctx, memory.LearnParams{Text: "My bank is Millennium BCP.", Kind: "fact", Workspace: "home"}, cursor)
	if err != nil {
		t.Fatal(err)
	}
	work, err := svc.Learn(ctx, memory.LearnParams{Text: "The release train leaves on Thursdays.", Kind: "fact", Workspace: "work"}, cursor)
	if err != nil {
		t.Fatal(err)
	}
	imp, err := svc.Import(ctx, memory.ImportParams{Items: []contract.ExportRecord{
		{Kind: "learning", LearningKind: "fact", Text: "My bank is something else.", Tags: []string{memory.ReplacesTag + home.ID}},
		{Kind: "document", Text: "The release train notes.", Tags: []string{memory.ReplacesTag + work.ID}},
	}}, limitedTo("work"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range imp.Results {
		if r.Status != contract.ImportStored {
			t.Fatalf("import: %+v", imp.Results)
		}
	}
	for _, tc := range []struct {
		old   string
		query string
		cc    contract.CallContext
	}{{home.ID, "which bank is mine?", limitedTo("home")}, {work.ID, "when does the release train leave?", limitedTo("work")}} {
		list, err := svc.List(ctx, memory.ListParams{}, tc.cc)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range list.Items {
			if h.ID == tc.old && h.Meta.SupersededBy != "" {
				t.Errorf("%s is listed superseded by %s", tc.old, h.Meta.SupersededBy)
			}
		}
		fetched, err := svc.Fetch(ctx, memory.FetchParams{Query: tc.query, Limit: 10}, tc.cc)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, h := range fetched.Hits {
			found = found || h.ID == tc.old
		}
		if !found {
			t.Errorf("fetch no longer finds %s: %+v", tc.old, fetched.Hits)
		}
	}
}

// Which hits are replaced is remembered between reads, and forgotten as
// soon as the store changes: a fetch before a correction finds the old
// learning, the same fetch after it does not, and after the correction
// is forgotten finds it again.
func TestReplacedIsReadAgainOnceTheStoreChanges(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	old := learn(t, svc, "The spare key is under the blue pot.")
	finds := func(id string) bool {
		t.Helper()
		res, err := svc.Fetch(ctx, memory.FetchParams{Query: "where is the spare key?", Limit: 10}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			if h.ID == id {
				return true
			}
		}
		return false
	}
	if !finds(old) || !finds(old) {
		t.Fatal("the learning is not found before its correction")
	}
	res, err := svc.Learn(ctx, memory.LearnParams{Text: "The spare key is under the red pot now.", Replaces: old}, cursor)
	if err != nil {
		t.Fatal(err)
	}
	if finds(old) {
		t.Error("after its correction, fetch still finds the replaced learning")
	}
	if _, err := svc.Forget(ctx, memory.ForgetParams{IDs: []string{res.ID}}, anyone); err != nil {
		t.Fatal(err)
	}
	if !finds(old) {
		t.Error("with its correction forgotten, fetch does not find the learning")
	}
}

package memorymain

import (
	"context"
	"slices"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/jetstream"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite/sqlitetest"
)

// Every replica keeps the counts tree.list_sources reads exact as it
// applies the write stream, and a replica started from a snapshot has them
// too: learnings, turns, a file in two workspaces, a changed file, a
// forgotten chunk (which the stream replays as what is left of its
// source) and a source whose every chunk was forgotten.
func TestReplicasKeepSourceCountsExact(t *testing.T) {
	followOptions = jetstream.FollowOptions{SnapshotEvery: 5}
	t.Cleanup(func() { followOptions = jetstream.FollowOptions{} })
	ns := mustJetStream(t)
	a := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	b := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	ctx := context.Background()
	cc := contract.CallContext{Source: "cli"}
	ingest := func(s *server, files ...contract.IngestFile) {
		t.Helper()
		if _, err := s.domain.Ingest(ctx, memory.IngestParams{Files: files}, cc); err != nil {
			t.Fatal(err)
		}
	}
	doc := func(ws, content string) contract.IngestFile {
		return contract.IngestFile{SourceID: "/docs/runbook.md", DisplayName: ws + "/runbook.md", SourceKind: "folder",
			Workspace: ws, Content: content, Language: "markdown", ModifiedMS: int64(len(content))}
	}
	runbook := "# Runbook\n\nRestart the queue.\n\n## Keys\n\nRotate the keys monthly.\n\n## Paging\n\nPage the on-call engineer."

	learn(t, a, "The staging database lives on host kestrel-7.")
	learn(t, b, "Deploys freeze on Fridays.")
	if _, err := a.domain.IngestConversation(ctx, memory.ConversationParams{Turns: []memory.Turn{
		{ThreadID: "t1", Speaker: "Maya", Text: "Shall we move the standup?"},
		{ThreadID: "t1", Speaker: "Omar", Text: "Yes, to ten."},
	}}, cc); err != nil {
		t.Fatal(err)
	}
	ingest(a, doc("ops", runbook), doc("dev", runbook))
	ingest(b, doc("ops", runbook+"\n\n## Escalation\n\nCall the lead."))
	ingest(a, contract.IngestFile{SourceID: "/docs/old.md", DisplayName: "old.md", SourceKind: "file", Workspace: "ops",
		Content: "# Old\n\nThe old way.\n\n## More\n\nStill old."})

	// b reads what a wrote once it has applied it.
	caughtUp(t, b, lastSeq(t, ns.ClientURL()))
	chunks, _, err := b.store.Browse(ctx, memory.BrowseQuery{SourceIDs: []string{"/docs/runbook.md"}, Workspaces: []string{"ops"}, K: 100})
	if err != nil || len(chunks) < 3 {
		t.Fatalf("runbook chunks in ops: %d, %v", len(chunks), err)
	}
	old, _, err := b.store.Browse(ctx, memory.BrowseQuery{SourceIDs: []string{"/docs/old.md"}, K: 100})
	if err != nil || len(old) == 0 {
		t.Fatalf("old.md chunks: %d, %v", len(old), err)
	}
	forget := []string{chunks[0].ID}
	for _, c := range old {
		forget = append(forget, c.ID)
	}
	if _, err := b.domain.Forget(ctx, memory.ForgetParams{IDs: forget}, cc); err != nil {
		t.Fatal(err)
	}

	last := lastSeq(t, ns.ClientURL())
	caughtUp(t, a, last)
	caughtUp(t, b, last)
	c := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	caughtUp(t, c, last)
	if c.repl.restored == 0 {
		t.Fatal("the new replica did not start from a snapshot")
	}
	scopes := [][]string{{"ops"}, {"dev"}, {"ops", "dev"}}
	want, err := a.store.Sources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*server{a, b, c} {
		sqlitetest.AssertSources(t, s.store, scopes...)
		got, err := s.store.Sources(ctx, nil)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("replica %s lists %+v (%v), replica %s %+v", s.repl.name, got, err, a.repl.name, want)
		}
	}
	for _, src := range want {
		if src.SourceID == "/docs/old.md" {
			t.Fatalf("a source whose every chunk was forgotten is listed: %+v", src)
		}
	}
}

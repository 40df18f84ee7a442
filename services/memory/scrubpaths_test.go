package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// Every way into memory scrubs every field it writes: after a learning, a
// sub-agent's learning, an ingested file (its chunks, its source record,
// its repository remote) and a conversation, the database file holds none
// of the secrets, nor does an entity or a source listing.
func TestEveryWritePathScrubs(t *testing.T) {
	secrets := []string{"hunter2x", "s3cretpass", "ghp_" + strings.Repeat("Q7w", 12), "tok9f8e7d6c5b4a"}
	path := filepath.Join(t.TempDir(), "memory.db")
	st := sqlite.New(path)
	if err := st.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := memory.NewService(st, &memory.Options{Embedder: localembed.NewGloveEmbedder(0)})
	ctx := context.Background()

	if _, err := svc.Learn(ctx, memory.LearnParams{Text: "Ops: my password is hunter2x, ask Maya."}, cursor); err != nil {
		t.Fatal(err)
	}
	agent := contract.CallContext{Source: "mcp:cursor/agent:note_taker", Agent: "note_taker"}
	if _, err := svc.Learn(ctx, memory.LearnParams{Text: "Deploy token: " + secrets[2]}, agent); err != nil {
		t.Fatal(err)
	}
	remote := "https://x-access-token:" + secrets[1] + "@github.com/acme/app.git"
	ing, err := svc.Ingest(ctx, memory.IngestParams{Files: []contract.IngestFile{{
		SourceID: "/src/app/.env?token=" + secrets[3], SourceKind: "file", DisplayName: ".env token=" + secrets[3],
		Content: "# Settings\n\nexport DB_PASSWORD=hunter2x\nSERVICE_URL=" + remote + "\n", Repo: remote, FilePath: ".env",
	}}}, cursor)
	if err != nil {
		t.Fatal(err)
	}
	if got := ing.Files[0].Redacted; !contains(got, "password") || !contains(got, "url_password") || !contains(got, "token") {
		t.Errorf("ingest reported %v", got)
	}
	conv, err := svc.IngestConversation(ctx, memory.ConversationParams{Turns: []memory.Turn{
		{ThreadID: "t1", Speaker: "Ravi", Text: "the wifi password is hunter2x"},
		{ThreadID: "t1", Speaker: "Maya", Text: "thanks, and GITHUB_TOKEN=" + secrets[2]},
	}}, cursor)
	if err != nil || conv.Stored != 2 {
		t.Fatalf("%+v %v", conv, err)
	}

	ents, err := svc.TopEntities(ctx, memory.TopEntitiesParams{K: 500}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := svc.ListSources(ctx, memory.ListSourcesParams{}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	for _, e := range ents.Entities {
		if e.ID == "term:redacted" {
			t.Errorf("the redaction marker became an entity: %+v", e)
		}
	}
	for _, secret := range secrets {
		for _, e := range ents.Entities {
			if strings.Contains(e.ID, strings.ToLower(secret)) || strings.Contains(e.Surface, secret) {
				t.Errorf("entity %+v keeps %s", e, secret)
			}
		}
		for _, s := range srcs.Sources {
			if strings.Contains(s.SourceID+s.DisplayName, secret) {
				t.Errorf("source %+v keeps %s", s, secret)
			}
		}
		for _, f := range []string{path, path + "-wal"} {
			b, _ := os.ReadFile(f)
			if strings.Contains(string(b), secret) {
				t.Errorf("%s holds %s", filepath.Base(f), secret)
			}
		}
	}
	// The scrubbed source id is stable: ingesting the same file again
	// finds it unchanged.
	again, err := svc.Ingest(ctx, memory.IngestParams{Files: []contract.IngestFile{{
		SourceID: "/src/app/.env?token=" + secrets[3], SourceKind: "file", DisplayName: ".env",
		Content: "# Settings\n\nexport DB_PASSWORD=hunter2x\nSERVICE_URL=" + remote + "\n", Repo: remote, FilePath: ".env",
	}}}, cursor)
	if err != nil || again.Files[0].Status != "unchanged" {
		t.Fatalf("re-ingest: %+v %v", again, err)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

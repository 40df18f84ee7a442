package memory_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// TestNoNULStored: NUL bytes a client sends, in a learning, a file (its
// content, name, path and language) or a conversation turn, are removed
// before anything is stored, and the rest of the text is kept.
func TestNoNULStored(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	if _, err := svc.Learn(ctx, memory.LearnParams{Text: "\x00The build\x00 runs nightly.\x00"}, cursor); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Learn(ctx, memory.LearnParams{Text: "\x00 \x00"}, cursor); contract.ErrorCode(err) != contract.CodeInvalidRequest {
		t.Errorf("a learning of NUL bytes alone: %v", err)
	}
	res, err := svc.Ingest(ctx, memory.IngestParams{Files: []contract.IngestFile{{SourceID: "/notes/plan\x00.md", SourceKind: "file",
		DisplayName: "plan\x00.md", Content: "# Plan\n\nShip the\x00 release on Friday.\n", Language: "mark\x00down",
		FilePath: "plan\x00.md", Folder: "no\x00tes", Commit: "abc\x00def"}}}, cursor)
	if err != nil || res.Files[0].Status != contract.IngestStored {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := svc.IngestConversation(ctx, memory.ConversationParams{Turns: []memory.Turn{{ThreadID: "t\x001", Speaker: "Ada\x00", Text: "Lunch\x00 at noon."}}}, cursor); err != nil {
		t.Fatal(err)
	}
	list, err := svc.List(ctx, memory.ListParams{Limit: 100}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	sources, err := svc.ListSources(ctx, memory.ListSourcesParams{}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal([]any{list, sources})
	if strings.Contains(string(out), `\u0000`) {
		t.Errorf("a NUL byte was stored: %s", out)
	}
	for _, want := range []string{`"The build runs nightly."`, "Ship the release on Friday.", "Ada: Lunch at noon.", `"/notes/plan.md"`, `"language":"markdown"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("%s is not stored: %s", want, out)
		}
	}
}

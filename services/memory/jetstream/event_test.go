package jetstream

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// goldenItems are the items of testdata/*.json: a learning with every
// field a learning has, and an ingested chunk with a source's.
func goldenItems() (learning, chunk memory.Item, src memory.SourceRecord) {
	conf := 0.8
	obs := time.Date(2026, 3, 14, 9, 26, 53, 589793000, time.UTC)
	created := time.Date(2026, 3, 15, 10, 0, 0, 0, time.UTC)
	learning = memory.Item{Kind: "learning", LearningKind: "preference", Text: "Maya prefers PostgreSQL; mail maya@example.com #db",
		Confidence: &conf, Source: "client", Provenance: "mcp:cursor", Meta: memory.Meta{Workspace: "team"},
		ObservedAt: obs, CreatedAt: created, TokenCount: 12,
		Entities: []memory.Entity{{ID: "email:maya@example.com", Kind: "email", Surface: "maya@example.com"}, {ID: "term:maya", Kind: "term", Surface: "Maya"}}}
	learning.ID = memory.Fingerprint(learning)
	chunk = memory.Item{Kind: "document", Text: "## Setup\nRun make run.", Source: "file", Provenance: "cli",
		Meta: memory.Meta{Workspace: "team", Folder: "docs", FilePath: "docs/setup.md", Language: "markdown", Repo: "https://example.com/r.git", Commit: "abc123"},
		Tags: []string{"setup"}, ObservedAt: obs, CreatedAt: created, SourceID: "docs/setup.md", SourceRef: "Setup", TokenCount: 6}
	chunk.ID = memory.Fingerprint(chunk)
	src = memory.SourceRecord{Workspace: "team", ID: "docs/setup.md", Kind: "file", DisplayName: "setup.md", ContentHash: "0f3a"}
	return learning, chunk, src
}

// goldenEvents are the events testdata/NAME.json holds, as this version
// builds them.
func goldenEvents() map[string]event {
	learning, chunk, src := goldenItems()
	return map[string]event{
		"put":            {Op: opPut, Items: toWireItems([]memory.Item{learning})},
		"replace":        {Op: opReplace, Src: toWireSource(src), Items: toWireItems([]memory.Item{chunk})},
		"start":          {Op: opStart, Src: toWireSource(src)},
		"part":           {Op: opPart, Src: toWireSource(src), Items: toWireItems([]memory.Item{chunk}), Last: true},
		"delete":         {Op: opDelete, IDs: []string{learning.ID}, Workspaces: []string{"team"}},
		"delete-all":     {Op: opDelete, IDs: []string{learning.ID}},
		"delete-nowhere": {Op: opDelete, IDs: []string{learning.ID}, Workspaces: []string{}},
	}
}

func readGolden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b, []byte("\n"))
}

// The stream's events are written byte for byte as the stream has always
// held them (testdata holds events as replicas wrote them before the event
// had types of its own), so replicas of either version read each other's
// during a rolling upgrade.
func TestEventsEncodeAsTheStreamHolds(t *testing.T) {
	for name, ev := range goldenEvents() {
		t.Run(name, func(t *testing.T) {
			got, err := encode(ev)
			if err != nil {
				t.Fatal(err)
			}
			if want := readGolden(t, name); !bytes.Equal(got, want) {
				t.Errorf("encoded\n%s\nwant (testdata/%s.json)\n%s", got, name, want)
			}
		})
	}
}

// Events as the stream holds them decode to the items they were made of.
func TestEventsDecodeAsWritten(t *testing.T) {
	learning, chunk, src := goldenItems()
	ev, err := decode(1, readGolden(t, "put"))
	if err != nil {
		t.Fatal(err)
	}
	got := ev.items()
	if ev.Op != opPut || len(got) != 1 {
		t.Fatalf("put decoded to %+v", ev)
	}
	assertItem(t, got[0], learning)

	ev, err = decode(2, readGolden(t, "part"))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Op != opPart || !ev.Last || ev.Src == nil || ev.Src.record() != src || len(ev.Items) != 1 {
		t.Fatalf("part decoded to %+v", ev)
	}
	assertItem(t, ev.items()[0], chunk)

	for name, want := range map[string][]string{"delete": {"team"}, "delete-all": nil, "delete-nowhere": {}} {
		ev, err := decode(3, readGolden(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if (ev.Workspaces == nil) != (want == nil) || len(ev.Workspaces) != len(want) || len(ev.IDs) != 1 || ev.IDs[0] != learning.ID {
			t.Errorf("%s decoded to ids %v, workspaces %#v; want workspaces %#v", name, ev.IDs, ev.Workspaces, want)
		}
	}
	if _, err := decode(4, []byte(`{"op":`)); err == nil {
		t.Error("a broken event decoded")
	}
}

func assertItem(t *testing.T, got, want memory.Item) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if !bytes.Equal(g, w) {
		t.Errorf("item\n%s\nwant\n%s", g, w)
	}
}

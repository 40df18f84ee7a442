package importers

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// got is what a reader emitted.
type got struct {
	records []contract.ExportRecord
	where   []string
	turns   []Turn
	threads []string
	faults  []string
}

func read(t *testing.T, format, path string) *got {
	t.Helper()
	g := &got{}
	now := func() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) }
	err := Read(format, path, Options{Workspace: "home", Now: now}, Sink{
		Record: func(where string, rec contract.ExportRecord) error {
			g.records, g.where = append(g.records, rec), append(g.where, where)
			return nil
		},
		Turns: func(where string, turns []Turn) error {
			g.turns, g.threads = append(g.turns, turns...), append(g.threads, where)
			return nil
		},
		Fault: func(where string, err error) error {
			g.faults = append(g.faults, where+": "+err.Error())
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func texts(recs []contract.ExportRecord) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Text
	}
	return out
}

func TestDetect(t *testing.T) {
	for path, want := range map[string]string{
		"testdata/server-memory/memory.jsonl":                FormatServerMemory,
		"testdata/basic-memory":                              FormatBasicMemory,
		"testdata/mem0/export.json":                          FormatMem0,
		"testdata/claude/conversations.json":                 FormatClaude,
		"testdata/chatgpt/conversations.json":                FormatChatGPT,
		"testdata/basic-memory/notes/coffee-bean-origins.md": FormatBasicMemory,
	} {
		if f, err := Detect(path); err != nil || f != want {
			t.Errorf("Detect(%s) = %q, %v; want %q", path, f, err, want)
		}
	}
	// An export whose first item's text is longer than any buffer read
	// ahead is still told by that item.
	long := filepath.Join(t.TempDir(), "memory.jsonl")
	first := `{"v":1,"kind":"learning","text":"` + strings.Repeat("word ", 40_000) + `"}` + "\n" + `{"v":1,"kind":"learning","text":"a"}` + "\n"
	if err := os.WriteFile(long, []byte(first), 0o600); err != nil {
		t.Fatal(err)
	}
	if f, err := Detect(long); err != nil || f != FormatOpenHuman {
		t.Errorf("Detect of an export with a 200 KB first line = %q, %v; want %q", f, err, FormatOpenHuman)
	}
}

func TestServerMemory(t *testing.T) {
	g := read(t, FormatServerMemory, "testdata/server-memory/memory.jsonl")
	want := []string{
		"John Smith (person): Speaks fluent Spanish", "John Smith (person): Graduated in 2019", "John Smith (person): Prefers morning meetings",
		"Anthropic (organization) is known.", "John Smith works at Anthropic.",
		"Lisbon Offsite (event): Takes place in May 2026", "John Smith organizes Lisbon Offsite.",
	}
	if !slices.Equal(texts(g.records), want) || len(g.faults) > 0 {
		t.Fatalf("records %q, faults %q; want %q", texts(g.records), g.faults, want)
	}
	if r := g.records[0]; !slices.Equal(r.Tags, []string{"John_Smith", "type:person"}) || r.Kind != "learning" ||
		r.Provenance != "import:server-memory" || r.Meta.Workspace != "home" || g.where[0] != "line 1, observation 1" {
		t.Errorf("first record %+v at %s", r, g.where[0])
	}
	if r := g.records[4]; !slices.Equal(r.Tags, []string{"John_Smith", "Anthropic"}) {
		t.Errorf("a relation is tagged %q, want both entities", r.Tags)
	}
}

func TestBasicMemory(t *testing.T) {
	g := read(t, FormatBasicMemory, "testdata/basic-memory")
	if len(g.records) != 2 || len(g.faults) > 0 {
		t.Fatalf("records %q, faults %q; want the two notes (not .basic-memory's config)", texts(g.records), g.faults)
	}
	r := g.records[0]
	if r.SourceID != "basic-memory:coffee-brewing-methods" || r.Meta.FilePath != "coffee-brewing-methods.md" || !slices.Equal(r.Tags, []string{"coffee", "brewing"}) ||
		!strings.HasPrefix(r.Text, "# Coffee Brewing Methods\n") || !strings.Contains(r.Text, "- relates_to [[Coffee Bean Origins]]") || r.Kind != "document" {
		t.Errorf("first note: %+v", r)
	}
	if r := g.records[1]; r.SourceID != "basic-memory:notes/coffee-bean-origins" || !slices.Equal(r.Tags, []string{"coffee", "origins"}) ||
		!strings.Contains(r.Text, "[[Coffee Brewing Methods]]") {
		t.Errorf("second note: %+v", r)
	}
}

func TestMem0(t *testing.T) {
	g := read(t, FormatMem0, "testdata/mem0/export.json")
	if want := []string{"Likes to play cricket on weekends", "Is allergic to peanuts", "Prefers window seats on long flights"}; !slices.Equal(texts(g.records), want) {
		t.Fatalf("records %q, want %q", texts(g.records), want)
	}
	r := g.records[1]
	if !slices.Equal(r.Tags, []string{"user:alice", "agent:travel-assistant", "health"}) || r.CreatedAt != "2024-08-01T16:00:00Z" ||
		r.ObservedAt != "2024-09-13T01:45:10.12Z" || r.Provenance != "import:mem0" {
		t.Errorf("second memory: %+v", r)
	}
	if r := g.records[2]; !slices.Contains(r.Tags, "run:trip-2024-10") {
		t.Errorf("a run id is no tag: %q", r.Tags)
	}
}

func TestClaude(t *testing.T) {
	g := read(t, FormatClaude, "testdata/claude/conversations.json")
	if len(g.turns) != 2 || len(g.faults) != 0 || len(g.threads) != 1 {
		t.Fatalf("turns %+v, faults %q", g.turns, g.faults)
	}
	if tu := g.turns[1]; tu.Speaker != "Claude" || tu.ThreadID != "claude:4f2c8a10-6b1e-4c2d-9f3a-1e2d3c4b5a69" ||
		!strings.HasPrefix(tu.Text, "For a team, Baixa") || tu.Timestamp != "2026-03-02T09:14:15.771902Z" || tu.Workspace != "home" {
		t.Errorf("the answer, read from its content: %+v", tu)
	}
	if g.turns[0].Speaker != "user" {
		t.Errorf("the human is %q", g.turns[0].Speaker)
	}
}

func TestChatGPT(t *testing.T) {
	g := read(t, FormatChatGPT, "testdata/chatgpt/conversations.json")
	var said []string
	for _, tu := range g.turns {
		said = append(said, tu.Speaker+": "+tu.Text)
	}
	want := []string{
		"user: My sourdough starter smells like nail polish. Is it dead?",
		"ChatGPT: No: the acetone smell means it is hungry. Feed it twice a day at room temperature.",
		"user: Thanks, I will feed it with rye flour.",
	}
	if !slices.Equal(said, want) {
		t.Fatalf("turns %q; want the conversation as last shown (no system prompt, no regenerated answer): %q", said, want)
	}
	if tu := g.turns[0]; tu.ThreadID != "chatgpt:6777c0a0-1b2c-8003-9d4e-5f6a7b8c9d0e" || tu.Timestamp != "2026-01-01T09:00:00.5Z" {
		t.Errorf("first turn %+v", tu)
	}
}

func TestSplitTurn(t *testing.T) {
	long := strings.Repeat("a line of a pasted log\n", 6000)
	parts := splitTurn(Turn{ThreadID: "t", Text: long})
	joined := ""
	for _, p := range parts {
		if n := len([]rune(p.Text)); n > maxTurnChars {
			t.Errorf("a part of %d characters", n)
		}
		joined += p.Text
	}
	if len(parts) < 2 || joined != long {
		t.Errorf("%d parts that join to %d of %d bytes", len(parts), len(joined), len(long))
	}
}

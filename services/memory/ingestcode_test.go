package memory_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// ingestTree stores the files under dir as `openhuman-core ingest` does.
func ingestTree(tb testing.TB, svc *memory.Service, dir string) {
	tb.Helper()
	var files []contract.IngestFile
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		lang := map[string]string{".go": "go", ".md": "markdown"}[filepath.Ext(path)]
		files = append(files, contract.IngestFile{SourceID: rel, SourceKind: "folder", DisplayName: rel, Content: string(b),
			Language: lang, Workspace: "gotree", FilePath: rel})
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := svc.Ingest(context.Background(), memory.IngestParams{Files: files}, contract.CallContext{Source: "cli"}); err != nil {
		tb.Fatal(err)
	}
}

var (
	goDecl    = regexp.MustCompile(`^(?:func|type|var|const|package|import)\b`)
	goImport  = regexp.MustCompile(`^(?:package \w+|import\b.*|\s*(?:\w+ )?"[\w./-]+"|\))$`)
	goComment = regexp.MustCompile(`^\s*//`)
)

// testdata/gotree is a copy of a few files of this repository: Go code,
// its tests and a Markdown page.
func TestIngestedCode(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	ingestTree(t, svc, "testdata/gotree")

	t.Run("API calls and keywords are not entities", func(t *testing.T) {
		ents, err := svc.TopEntities(ctx, memory.TopEntitiesParams{K: 10}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range ents.Entities {
			ids = append(ids, e.ID)
			switch strings.TrimPrefix(e.ID, "term:") {
			case "errorf", "fatalf", "fatal", "context", "trimspace", "mustcompile", "scan", "builder", "select", "desc", "order by", "text":
				t.Errorf("top entity %s", e.ID)
			}
		}
		if !strings.Contains(strings.Join(ids, " "), "term:store") {
			t.Errorf("the code's own names are missing from the top entities: %v", ids)
		}
	})

	t.Run("code chunks follow declarations, imports apart", func(t *testing.T) {
		list, err := svc.Browse(ctx, memory.BrowseParams{K: 100}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		var prev memory.ChunkRow
		for i := len(list.Chunks) - 1; i >= 0; i-- { // oldest first: file order
			c := list.Chunks[i]
			full, _ := svc.ReadChunk(ctx, memory.ReadChunkParams{ChunkID: c.ID}, anyone)
			if !strings.HasSuffix(c.SourceID, ".go") {
				if !strings.HasSuffix(c.SourceID, ".md") || strings.HasPrefix(c.SourceRef, "lines") {
					t.Errorf("%s: a Markdown chunk without its section: %q", c.SourceID, c.SourceRef)
				}
				continue
			}
			var code []string
			for _, l := range strings.Split(full.Content, "\n") {
				if strings.TrimSpace(l) != "" && !goComment.MatchString(l) {
					code = append(code, l)
				}
			}
			imports := 0
			for _, l := range code {
				if goImport.MatchString(l) {
					imports++
				}
			}
			if imports > 0 && imports != len(code) && !(imports == 1 && strings.HasPrefix(code[0], "package")) {
				t.Errorf("%s %s mixes imports with code:\n%s", c.SourceID, c.SourceRef, full.Content)
			}
			// A chunk starts at a declaration, unless it goes on with one
			// too big for one chunk: then neither part is a scrap.
			if len(code) > 0 && !goDecl.MatchString(code[0]) {
				if prev.SourceID != c.SourceID || prev.TokenCount < 100 || c.TokenCount < 100 {
					t.Errorf("%s %s starts inside a declaration (%d tokens, %d before):\n%s", c.SourceID, c.SourceRef, c.TokenCount, prev.TokenCount, full.Content)
				}
			}
			prev = c
		}
	})

	t.Run("recall does not quote imports", func(t *testing.T) {
		for _, q := range []string{"Which packages does the sqlite store use?", "What does the sqlite package do with context and errors?",
			"How are secrets scrubbed?", "How does the store list sources?"} {
			res, err := svc.Recall(ctx, memory.RecallParams{Question: q}, anyone)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range res.Citations {
				if goImport.MatchString(c.Snippet) {
					t.Errorf("%q quotes %q", q, c.Snippet)
				}
			}
		}
	})
}

package chunking

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chunkInParts chunks text as the ingest walk sends it: parts of at most size
// bytes, cut at a line end, each starting where the last reply said.
func chunkInParts(t *testing.T, text, language string, size int) (chunks []Chunk, parts int) {
	t.Helper()
	offset, line, resume := 0, 1, ""
	for offset < len(text) {
		end := min(offset+size, len(text))
		if end < len(text) {
			if nl := strings.LastIndexByte(text[offset:end], '\n'); nl >= 0 {
				end = offset + nl + 1
			}
		}
		res, err := Part(text[offset:end], language, DefaultTokens, line, resume, end < len(text))
		if err != nil {
			t.Fatal(err)
		}
		if res.Used <= 0 {
			t.Fatalf("part %d at byte %d used nothing", parts, offset)
		}
		chunks = append(chunks, res.Chunks...)
		offset, line, resume = offset+res.Used, res.NextLine, res.Resume
		parts++
	}
	return chunks, parts
}

func sameChunks(t *testing.T, name string, got, want []Chunk) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d chunks in parts, %d whole", name, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("%s: chunk %d differs:\nparts %q %.80q\nwhole %q %.80q", name, i, got[i].Ref, got[i].Text, want[i].Ref, want[i].Text)
			return
		}
	}
}

// A file sent in parts gets the chunks it gets whole, for Markdown, code
// and other text, whatever the part size, as long as a part holds more
// than one section, declaration or paragraph.
func TestChunkPartsMatchWhole(t *testing.T) {
	texts := map[string][2]string{}
	_ = filepath.WalkDir("testdata/gotree", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			lang := "go"
			if strings.HasSuffix(p, ".md") {
				lang = "markdown"
			}
			texts[p] = [2]string{string(data), lang}
		}
		return nil
	})
	var md, plain, crlf strings.Builder
	for i := range 300 {
		fmt.Fprintf(&md, "## Part %d\n\nIntro of part %d.\n\n", i, i)
		if i%7 == 0 {
			fmt.Fprintf(&md, "```sh\n# not a heading %d\nmake x\n```\n\n", i)
		}
		if i%13 == 0 { // a fence long enough for a part to end inside it
			md.WriteString("```sh\n")
			for j := range 60 {
				fmt.Fprintf(&md, "# step %d is no heading\nmake step-%d %s\n\n", j, j, strings.Repeat("arg ", 20))
			}
			md.WriteString("```\n\n")
		}
		for j := range i % 5 {
			fmt.Fprintf(&md, "### Sub %d.%d\n%s\n\n", i, j, strings.Repeat(fmt.Sprintf("word%d ", j), 40+i%90))
		}
		fmt.Fprintf(&plain, "%s\n%s\n\n", strings.Repeat(fmt.Sprintf("para%d ", i), 5+i%200), strings.Repeat("more ", i%30))
		fmt.Fprintf(&crlf, "line %d of a windows file\r\n", i)
		if i%11 == 0 {
			crlf.WriteString("\r\n")
		}
	}
	texts["markdown"] = [2]string{"Preamble before any heading.\n\n# Title\n\n" + md.String(), "markdown"}
	texts["plain"] = [2]string{plain.String(), "text"}
	texts["crlf"] = [2]string{crlf.String(), "text"}
	for name, tl := range texts {
		want := Text(tl[0], tl[1], DefaultTokens)
		for _, size := range []int{4 << 10, 9 << 10, 64 << 10} {
			got, parts := chunkInParts(t, tl[0], tl[1], size)
			if len(tl[0]) > 2*size && parts < 2 {
				t.Errorf("%s: %d bytes in %d parts of %d", name, len(tl[0]), parts, size)
			}
			sameChunks(t, fmt.Sprintf("%s in parts of %d", name, size), got, want)
		}
	}
}

// A part that has no place where chunking starts afresh (one paragraph
// longer than a part) is cut at its end: everything is still stored, in
// order, and every part makes progress.
func TestChunkPartsLongParagraph(t *testing.T) {
	text := strings.Repeat("a line of one long paragraph\n", 2000)
	got, parts := chunkInParts(t, text, "text", 8<<10)
	if parts < 5 {
		t.Fatalf("%d parts", parts)
	}
	var all strings.Builder
	for _, c := range got {
		all.WriteString(c.Text + "\n")
	}
	if strings.Count(all.String(), "a line of one long paragraph") != 2000 {
		t.Errorf("lines lost or repeated: %d", strings.Count(all.String(), "a line of one long paragraph"))
	}
	if _, err := Part("x", "markdown", DefaultTokens, 1, "{bad", true); err == nil || !strings.Contains(err.Error(), "resume") {
		t.Errorf("a bad resume state: %v", err)
	}
}

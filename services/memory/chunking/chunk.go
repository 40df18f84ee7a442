// Package chunking cuts a source into the pieces memory stores as items:
// Markdown by headings, code by top-level declarations, other text by
// paragraphs, each about a token budget; and a file sent in parts part by
// part, giving the chunks a whole-file chunking gives (part.go). It is
// pure text: it knows nothing of items or storage.
package chunking

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Chunk is a piece of a source and where it sits in it.
type Chunk struct {
	Text string
	Ref  string // a heading path ("Deploying > Staging") or a line range ("lines 10-42")
}

// DefaultTokens is the token budget of a chunk.
const DefaultTokens = 400

var (
	mdHeading = regexp.MustCompile(`^(#{1,6})\s+(.+?)\s*#*\s*$`)
	// A top-level declaration starts a new piece of code.
	codeDecl = regexp.MustCompile(`^(?:func|type|class|def|async def|fn|pub(?:\([a-z]+\))? (?:fn|struct|enum|trait|mod)|impl|interface|struct|enum|trait|module|function|export|const|var|let|public|private|protected|internal|static|package|object|data class|@[A-Za-z])\b`)
)

// Text splits text by its structure into chunks of about budget
// tokens: Markdown by headings (a chunk never spans two sections), code by
// top-level declarations (imports apart), other text by paragraphs. Pieces
// larger than the budget are split by paragraph, then by line.
func Text(text, language string, budget int) []Chunk {
	if budget <= 0 {
		budget = DefaultTokens
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	switch {
	case language == "markdown":
		return chunkMarkdown(text, budget)
	case IsCode(language):
		return chunkCode(text, budget)
	}
	return pack(paragraphs(text, 1), budget, "")
}

// piece is a unit of text with the line it starts at.
type piece struct {
	text string
	line int
}

func chunkMarkdown(text string, budget int) []Chunk {
	out, _, _ := chunkMarkdownFrom(text, 1, partState{}, false, budget)
	return out
}

// chunkMarkdownFrom chunks text that starts at line first of its file in
// state st. With more (the file goes on past text) it keeps only the chunks
// a whole-file chunking makes the same, and says at which line of text to
// resume and in what state (see resumeAt).
func chunkMarkdownFrom(text string, first int, st partState, more bool, budget int) ([]Chunk, int, partState) {
	c := &mdChunker{first: first, budget: budget, path: append([]string(nil), st.Path...),
		start: first, mid: st.Section > 0, best: resumeAt{state: st}}
	if c.mid {
		c.start = st.Section
	}
	lines := strings.Split(text, "\n")
	fenceAt, inFence := c.scan(lines, st.Fence)
	end := first + strings.Count(text, "\n")
	if !more {
		c.flush(end)
		return c.out, len(lines), partState{}
	}
	c.resumeInOpenSection(fenceAt)
	if c.best.line > 0 {
		return c.best.chunks, c.best.line, c.best.state
	}
	// No place in this part where chunking starts afresh: the open section
	// is cut at the part's end, the one place where the chunks can differ
	// from the whole file's.
	c.flush(end)
	return c.out, len(lines), partState{Path: c.path, Fence: inFence, Section: c.start}
}

// mdChunker is chunkMarkdownFrom's state as it reads a part's lines.
type mdChunker struct {
	first, budget int
	out           []Chunk
	path          []string // heading titles by level
	body          []string // the open section's lines
	start, bodyAt int      // the open section's first line, and its body's index in the part
	// mid: the part resumes inside a section whose heading came before.
	mid  bool
	best resumeAt // the last place a next part may start afresh
}

// scan reads the lines, flushing a section at each heading outside a
// fence. It returns whether a fence is open before each line, and after
// the last.
func (c *mdChunker) scan(lines []string, inFence bool) ([]bool, bool) {
	fenceAt := make([]bool, len(lines))
	for i, line := range lines {
		fenceAt[i] = inFence
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
		}
		if m := mdHeading.FindStringSubmatch(line); m != nil && !inFence {
			c.heading(i, len(m[1]), m[2])
		}
		if len(c.body) == 0 && !c.mid {
			c.bodyAt = i
		}
		c.body = append(c.body, line)
	}
	return fenceAt, inFence
}

// heading ends the open section at line i and opens the one titled title.
func (c *mdChunker) heading(i, level int, title string) {
	fresh := c.mid || !onlyHeadings(c.body)
	c.flush(c.first - 1 + i)
	if fresh && i > 0 {
		c.best = resumeAt{line: i, chunks: c.out, state: partState{Path: append([]string(nil), c.path...)}}
	}
	for len(c.path) < level {
		c.path = append(c.path, "")
	}
	c.path = append(c.path[:level-1], title)
	c.start = c.first + i
}

func (c *mdChunker) sectionText() string {
	s := strings.Join(c.body, "\n")
	if c.mid {
		// The section's start was trimmed in an earlier part, not here.
		return strings.TrimRightFunc(s, unicode.IsSpace)
	}
	return strings.TrimSpace(s)
}

func (c *mdChunker) ref(end int) string {
	if r := strings.Join(nonEmpty(c.path), " > "); r != "" {
		return r
	}
	return fmt.Sprintf("lines %d-%d", c.start, end)
}

// flush packs the open section, ending at line end, into chunks.
func (c *mdChunker) flush(end int) {
	if !c.mid && onlyHeadings(c.body) {
		return // a heading with nothing under it leads into the next section
	}
	if section := c.sectionText(); section != "" {
		c.out = append(c.out, pack(paragraphs(section, c.start), c.budget, c.ref(end))...)
	}
	c.body, c.mid = c.body[:0], false
}

// resumeInOpenSection moves best into the open section when packing
// starts afresh at some of its paragraphs past best. The section's chunks
// are named by its heading path, which is known, unless the section is the
// text before the first heading, named by its line range: that ends where
// no part has reached yet.
func (c *mdChunker) resumeInOpenSection(fenceAt []bool) {
	name := strings.Join(nonEmpty(c.path), " > ")
	if name == "" || !c.mid && onlyHeadings(c.body) {
		return
	}
	pieces := paragraphs(c.sectionText(), c.first+c.bodyAt)
	var at, n int
	packed := packPiecesResets(pieces, c.budget, func(i, k int) {
		if i > 0 {
			at, n = pieces[i].line-c.first, k
		}
	})
	if at > c.best.line {
		chunks := append([]Chunk(nil), c.out...)
		for _, p := range packed[:n] {
			chunks = append(chunks, Chunk{Text: strings.TrimSpace(p.text), Ref: name})
		}
		c.best = resumeAt{line: at, chunks: chunks, state: partState{Path: c.path, Fence: fenceAt[at], Section: c.start}}
	}
}

func onlyHeadings(lines []string) bool {
	heads := 0
	for _, l := range lines {
		switch {
		case strings.TrimSpace(l) == "":
		case mdHeading.MatchString(l):
			heads++
		default:
			return false
		}
	}
	return heads > 0
}

// paragraphs splits text at blank lines; first is the line text starts at.
func paragraphs(text string, first int) []piece {
	var out []piece
	var cur []string
	start := first
	for i, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			if len(cur) > 0 {
				out = append(out, piece{strings.Join(cur, "\n"), start})
				cur = nil
			}
			continue
		}
		if len(cur) == 0 {
			start = first + i
		}
		cur = append(cur, line)
	}
	if len(cur) > 0 {
		out = append(out, piece{strings.Join(cur, "\n"), start})
	}
	return out
}

// pack joins pieces into chunks within budget; ref names them all, or when
// empty each chunk gets its line range.
func pack(pieces []piece, budget int, ref string) []Chunk {
	return named(packPieces(pieces, budget), ref)
}

// named makes chunks of packed pieces; ref names them all, or when empty
// each chunk gets its line range.
func named(packed []piece, ref string) []Chunk {
	var out []Chunk
	for _, p := range packed {
		r := ref
		if r == "" {
			r = fmt.Sprintf("lines %d-%d", p.line, p.line+strings.Count(p.text, "\n"))
		}
		out = append(out, Chunk{Text: strings.TrimSpace(p.text), Ref: r})
	}
	return out
}

func packPieces(pieces []piece, budget int) []piece {
	return packPiecesResets(pieces, budget, nil)
}

// packPiecesResets is packPieces that calls reset(i, n) wherever packing
// starts afresh at pieces[i] with n pieces out so far: what follows there
// does not depend on what came before, so a file sent in parts can resume
// there.
func packPiecesResets(pieces []piece, budget int, reset func(i, n int)) []piece {
	var out []piece
	var cur []string
	curLine, tokens := 0, 0
	flush := func() {
		if len(cur) > 0 {
			out = append(out, piece{strings.Join(cur, "\n\n"), curLine})
			cur, tokens = nil, 0
		}
	}
	for i, p := range pieces {
		t := EstimateTokens(p.text)
		if t > budget || tokens+t > budget {
			flush()
		}
		if reset != nil && len(cur) == 0 {
			reset(i, len(out))
		}
		if t > budget {
			out = append(out, splitLines(p, budget)...)
			continue
		}
		if len(cur) == 0 {
			curLine = p.line
		}
		cur = append(cur, p.text)
		tokens += t
	}
	flush()
	return out
}

// splitLines cuts an oversized piece at line ends into parts of about
// even size (no small leftover), and a line longer than the budget at the
// budget.
func splitLines(p piece, budget int) []piece {
	maxChars := budget * 4
	parts := (len(p.text) + maxChars - 1) / maxChars
	target := (len(p.text) + parts - 1) / max(parts, 1)
	var out []piece
	var cur strings.Builder
	line, start := p.line, p.line
	for _, l := range strings.Split(p.text, "\n") {
		for len(l) > maxChars {
			if cur.Len() > 0 {
				out = append(out, piece{cur.String(), start})
				cur.Reset()
			}
			cut := maxChars
			for cut > 0 && l[cut]&0xC0 == 0x80 { // keep UTF-8 sequences whole
				cut--
			}
			out = append(out, piece{l[:cut], line})
			l = l[cut:]
		}
		if cur.Len()+len(l) > maxChars && cur.Len() > 0 {
			out = append(out, piece{cur.String(), start})
			cur.Reset()
		}
		if cur.Len() == 0 {
			start = line
		} else {
			cur.WriteByte('\n')
		}
		cur.WriteString(l)
		line++
		if cur.Len() >= target {
			out = append(out, piece{cur.String(), start})
			cur.Reset()
		}
	}
	if cur.Len() > 0 {
		out = append(out, piece{cur.String(), start})
	}
	return out
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// EstimateTokens approximates a text's size in model tokens (about four
// characters each for English and code).
func EstimateTokens(text string) int {
	return max(1, (len(text)+3)/4)
}

package memory

import (
	"fmt"
	"regexp"
	"strings"
)

// Chunk is a piece of a source and where it sits in it.
type Chunk struct {
	Text string
	Ref  string // a heading path ("Deploying > Staging") or a line range ("lines 10-42")
}

// DefaultChunkTokens is the token budget of a chunk.
const DefaultChunkTokens = 400

var (
	mdHeading = regexp.MustCompile(`^(#{1,6})\s+(.+?)\s*#*\s*$`)
	// A top-level declaration starts a new code chunk.
	codeDecl = regexp.MustCompile(`^(?:func|type|class|def|async def|fn|pub(?:\([a-z]+\))? (?:fn|struct|enum|trait|mod)|impl|interface|struct|enum|trait|module|function|export|const|var|let|public|private|protected|internal|static|package|object|data class|@[A-Za-z])\b`)
)

// ChunkText splits text by its structure into chunks of about budget
// tokens: Markdown by headings, code by top-level declarations, other text
// by paragraphs. Pieces larger than the budget are split by paragraph,
// then by line.
func ChunkText(text, language string, budget int) []Chunk {
	if budget <= 0 {
		budget = DefaultChunkTokens
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	switch {
	case language == "markdown":
		return chunkMarkdown(text, budget)
	case codeLanguages[language]:
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
	var out []Chunk
	var path []string // heading titles by level
	var body []string
	start := 1
	flush := func(end int) {
		section := strings.TrimSpace(strings.Join(body, "\n"))
		if onlyHeadings(body) {
			return // a heading with nothing under it leads into the next section
		}
		if section != "" {
			ref := strings.Join(nonEmpty(path), " > ")
			if ref == "" {
				ref = fmt.Sprintf("lines %d-%d", start, end)
			}
			out = append(out, pack(paragraphs(section, start), budget, ref)...)
		}
		body = body[:0]
	}
	inFence := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
		}
		if m := mdHeading.FindStringSubmatch(line); m != nil && !inFence {
			flush(i)
			level := len(m[1])
			for len(path) < level {
				path = append(path, "")
			}
			path = append(path[:level-1], m[2])
			start = i + 1
		}
		body = append(body, line)
	}
	flush(strings.Count(text, "\n") + 1)
	return out
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

func chunkCode(text string, budget int) []Chunk {
	lines := strings.Split(text, "\n")
	var units []piece
	var cur []string
	curStart := 1
	for i, line := range lines {
		if codeDecl.MatchString(line) && len(cur) > 0 {
			// A comment block right above a declaration belongs to it.
			j := len(cur)
			for j > 0 && isComment(cur[j-1]) {
				j--
			}
			if j > 0 {
				units = append(units, piece{strings.TrimRight(strings.Join(cur[:j], "\n"), "\n"), curStart})
				curStart += j
				cur = append([]string{}, cur[j:]...)
			}
		}
		cur = append(cur, line)
		_ = i
	}
	units = append(units, piece{strings.TrimRight(strings.Join(cur, "\n"), "\n"), curStart})
	var out []Chunk
	for _, c := range packPieces(units, budget) {
		end := c.line + strings.Count(c.text, "\n")
		if strings.TrimSpace(c.text) != "" {
			out = append(out, Chunk{Text: strings.TrimSpace(c.text), Ref: fmt.Sprintf("lines %d-%d", c.line, end)})
		}
	}
	return out
}

func isComment(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "--")
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
	var out []Chunk
	for _, p := range packPieces(pieces, budget) {
		r := ref
		if r == "" {
			r = fmt.Sprintf("lines %d-%d", p.line, p.line+strings.Count(p.text, "\n"))
		}
		out = append(out, Chunk{Text: strings.TrimSpace(p.text), Ref: r})
	}
	return out
}

func packPieces(pieces []piece, budget int) []piece {
	var out []piece
	var cur []string
	curLine, tokens := 0, 0
	flush := func() {
		if len(cur) > 0 {
			out = append(out, piece{strings.Join(cur, "\n\n"), curLine})
			cur, tokens = nil, 0
		}
	}
	for _, p := range pieces {
		t := EstimateTokens(p.text)
		if t > budget {
			flush()
			out = append(out, splitLines(p, budget)...)
			continue
		}
		if tokens+t > budget {
			flush()
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

// splitLines cuts an oversized piece at line ends, and a line longer than
// the budget at the budget.
func splitLines(p piece, budget int) []piece {
	maxChars := budget * 4
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

// codeLanguages are chunked by declarations.
var codeLanguages = map[string]bool{
	"go": true, "python": true, "javascript": true, "typescript": true, "rust": true, "java": true, "kotlin": true,
	"c": true, "cpp": true, "csharp": true, "ruby": true, "php": true, "swift": true, "scala": true, "shell": true,
	"sql": true, "lua": true, "elixir": true, "haskell": true, "zig": true,
}

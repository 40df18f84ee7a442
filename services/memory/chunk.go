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
	// A top-level declaration starts a new piece of code.
	codeDecl = regexp.MustCompile(`^(?:func|type|class|def|async def|fn|pub(?:\([a-z]+\))? (?:fn|struct|enum|trait|mod)|impl|interface|struct|enum|trait|module|function|export|const|var|let|public|private|protected|internal|static|package|object|data class|@[A-Za-z])\b`)
)

// ChunkText splits text by its structure into chunks of about budget
// tokens: Markdown by headings (a chunk never spans two sections), code by
// top-level declarations (imports apart), other text by paragraphs. Pieces
// larger than the budget are split by paragraph, then by line.
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

// chunkCode cuts code into its top-level declarations, each with the
// comments right above it. The package clause and imports at the top form
// a chunk of their own. A declaration is a chunk by itself, except that
// small neighbours (together within a quarter of the budget) share one;
// a declaration over the budget is cut into even parts at line ends.
func chunkCode(text string, budget int) []Chunk {
	lines := strings.Split(text, "\n")
	imports := importLines(lines)
	var units []codeUnit
	var cur []string
	curStart, inImports := 1, false
	flush := func(n int) { // the first n lines of cur become a unit
		// A package clause alone is no import block: it goes with what
		// follows when that is small.
		imp := false
		for _, l := range cur[:n] {
			imp = imp || (importLine.MatchString(l) && !packageClause.MatchString(l))
		}
		units = append(units, codeUnit{piece{strings.TrimRight(strings.Join(cur[:n], "\n"), "\n"), curStart}, imp})
		curStart += n
		cur = append([]string{}, cur[n:]...)
	}
	for i, line := range lines {
		code := strings.TrimSpace(line) != "" && (imports[i] || !isComment(line))
		startsImports := imports[i] && !inImports
		endsImports := inImports && code && !imports[i]
		if (codeDecl.MatchString(line) || startsImports || endsImports) && len(cur) > 0 {
			// A comment block right above a declaration belongs to it.
			j := len(cur)
			for j > 0 && isComment(cur[j-1]) {
				j--
			}
			if j > 0 {
				flush(j)
			}
		}
		if code {
			inImports = imports[i]
		}
		cur = append(cur, line)
	}
	flush(len(cur))
	var out []Chunk
	for _, c := range groupCode(units, budget) {
		if strings.TrimSpace(c.text) != "" {
			end := c.line + strings.Count(c.text, "\n")
			out = append(out, Chunk{Text: strings.TrimSpace(c.text), Ref: fmt.Sprintf("lines %d-%d", c.line, end)})
		}
	}
	return out
}

// codeUnit is a declaration with its comments, or a run of imports.
type codeUnit struct {
	piece
	imports bool
}

// groupCode makes chunks of units: imports apart from declarations, small
// neighbours together, big declarations cut into even parts.
func groupCode(units []codeUnit, budget int) []piece {
	small := budget / 4
	var out []piece
	var cur []string
	curLine, curEnd, tokens, curImports := 0, 0, 0, false
	flush := func() {
		if len(cur) > 0 {
			// Keep the lines between units, so line numbers hold.
			out = append(out, piece{strings.Join(cur, "\n"), curLine})
			cur, tokens = nil, 0
		}
	}
	for _, u := range units {
		if strings.TrimSpace(u.text) == "" {
			continue
		}
		t := EstimateTokens(u.text)
		if t > budget {
			flush()
			out = append(out, splitLines(u.piece, budget)...)
			continue
		}
		if len(cur) > 0 && (u.imports != curImports || tokens+t > small) {
			flush()
		}
		if len(cur) == 0 {
			curLine, curImports = u.line, u.imports
		} else {
			for curEnd+1 < u.line { // the blank lines the units were apart by
				cur = append(cur, "")
				curEnd++
			}
		}
		cur = append(cur, u.text)
		curEnd = u.line + strings.Count(u.text, "\n")
		tokens += t
	}
	flush()
	return out
}

func isComment(line string) bool {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "#") && importLine.MatchString(t) {
		return false // #include
	}
	return strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "--")
}

// importLine matches a line that names the file's package or brings another
// one in: package, import, from … import, use, #include, require.
var importLine = regexp.MustCompile(`^\s*(?:package\s+[\w.]+\s*;?\s*$|import\b|from\s+[\w.]+\s+import\b|(?:pub\s+)?use\s+[\w:\\{]|extern\s+crate\b|#\s*include\b|require(?:_relative|_once)?\b|include(?:_once)?\s*[("']|using\s+[\w.]+\s*;|(?:const|let|var|local)\s+[\w{}\s,]+=\s*require\s*\()`)

var packageClause = regexp.MustCompile(`^\s*package\s`)

// importLines marks the lines of code that are package clauses and imports,
// with the lines of an import block (Go's import ( … ), JavaScript's
// import { … } from).
func importLines(lines []string) []bool {
	is := make([]bool, len(lines))
	open := 0 // brackets the import statement being read left open
	for i, l := range lines {
		if open > 0 || importLine.MatchString(l) {
			is[i] = true
			open = max(0, open+strings.Count(l, "(")+strings.Count(l, "{")-strings.Count(l, ")")-strings.Count(l, "}"))
		}
	}
	return is
}

// withoutImports is code without its package clause and import lines.
func withoutImports(text string) string {
	lines := strings.Split(text, "\n")
	imports := importLines(lines)
	kept := lines[:0:0]
	for i, l := range lines {
		if !imports[i] {
			kept = append(kept, l)
		}
	}
	return strings.TrimSpace(strings.Join(kept, "\n"))
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

// codeLanguages are chunked by declarations.
var codeLanguages = map[string]bool{
	"go": true, "python": true, "javascript": true, "typescript": true, "rust": true, "java": true, "kotlin": true,
	"c": true, "cpp": true, "csharp": true, "ruby": true, "php": true, "swift": true, "scala": true, "shell": true,
	"sql": true, "lua": true, "elixir": true, "haskell": true, "zig": true,
}

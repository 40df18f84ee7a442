package memory

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
	out, _, _ := chunkMarkdownFrom(text, 1, partState{}, false, budget)
	return out
}

// chunkMarkdownFrom chunks text that starts at line first of its file in
// state st. With more (the file goes on past text) it keeps only the chunks
// a whole-file chunking makes the same, and says at which line of text to
// resume and in what state (see resumeAt).
func chunkMarkdownFrom(text string, first int, st partState, more bool, budget int) ([]Chunk, int, partState) {
	var out []Chunk
	path := append([]string(nil), st.Path...) // heading titles by level
	var body []string
	start, bodyAt := first, 0
	// mid: the part resumes inside a section whose heading came before.
	mid := st.Section > 0
	if mid {
		start = st.Section
	}
	best := resumeAt{state: st}
	sectionText := func() string {
		s := strings.Join(body, "\n")
		if mid {
			// The section's start was trimmed in an earlier part, not here.
			return strings.TrimRightFunc(s, unicode.IsSpace)
		}
		return strings.TrimSpace(s)
	}
	ref := func(end int) string {
		if r := strings.Join(nonEmpty(path), " > "); r != "" {
			return r
		}
		return fmt.Sprintf("lines %d-%d", start, end)
	}
	flush := func(end int) {
		if !mid && onlyHeadings(body) {
			return // a heading with nothing under it leads into the next section
		}
		if section := sectionText(); section != "" {
			out = append(out, pack(paragraphs(section, start), budget, ref(end))...)
		}
		body, mid = body[:0], false
	}
	lines := strings.Split(text, "\n")
	fenceAt := make([]bool, len(lines)) // whether a fence is open before each line
	inFence := st.Fence
	for i, line := range lines {
		fenceAt[i] = inFence
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
		}
		if m := mdHeading.FindStringSubmatch(line); m != nil && !inFence {
			fresh := mid || !onlyHeadings(body)
			flush(first - 1 + i)
			if fresh && i > 0 {
				best = resumeAt{line: i, chunks: out, state: partState{Path: append([]string(nil), path...)}}
			}
			level := len(m[1])
			for len(path) < level {
				path = append(path, "")
			}
			path = append(path[:level-1], m[2])
			start = first + i
		}
		if len(body) == 0 && !mid {
			bodyAt = i
		}
		body = append(body, line)
	}
	if !more {
		flush(first + strings.Count(text, "\n"))
		return out, len(lines), partState{}
	}
	// Inside the open section packing starts afresh at some paragraphs.
	// The section's chunks are named by its heading path, which is known,
	// unless the section is the text before the first heading, named by
	// its line range: that ends where no part has reached yet.
	name := strings.Join(nonEmpty(path), " > ")
	if name != "" && (mid || !onlyHeadings(body)) {
		pieces := paragraphs(sectionText(), first+bodyAt)
		var at, n int
		packed := packPiecesResets(pieces, budget, func(i, k int) {
			if i > 0 {
				at, n = pieces[i].line-first, k
			}
		})
		if at > best.line {
			chunks := append([]Chunk(nil), out...)
			for _, p := range packed[:n] {
				chunks = append(chunks, Chunk{Text: strings.TrimSpace(p.text), Ref: name})
			}
			best = resumeAt{line: at, chunks: chunks, state: partState{Path: path, Fence: fenceAt[at], Section: start}}
		}
	}
	if best.line > 0 {
		return best.chunks, best.line, best.state
	}
	// No place in this part where chunking starts afresh: the open section
	// is cut at the part's end, the one place where the chunks can differ
	// from the whole file's.
	flush(first + strings.Count(text, "\n"))
	return out, len(lines), partState{Path: path, Fence: inFence, Section: start}
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
	out, _, _ := chunkCodeFrom(text, 1, partState{}, false, budget)
	return out
}

// chunkCodeFrom is chunkCode for text that starts at line first of its file
// in state st; with more, as chunkMarkdownFrom.
func chunkCodeFrom(text string, first int, st partState, more bool, budget int) ([]Chunk, int, partState) {
	lines := strings.Split(text, "\n")
	imports, openAt := importLinesFrom(lines, st.Open)
	var units []codeUnit
	var cur []string
	curStart, inImports := first, st.Imports
	importsAt := make([]bool, len(lines)) // inImports before each line
	// flush makes the first n lines of cur a unit.
	flush := func(n int) {
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
		importsAt[i] = inImports
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
	chunks := func(ps []piece) []Chunk {
		var out []Chunk
		for _, c := range ps {
			if strings.TrimSpace(c.text) != "" {
				end := c.line + strings.Count(c.text, "\n")
				out = append(out, Chunk{Text: strings.TrimSpace(c.text), Ref: fmt.Sprintf("lines %d-%d", c.line, end)})
			}
		}
		return out
	}
	if !more {
		return chunks(groupCode(units, budget, nil)), len(lines), partState{}
	}
	// The last unit may go on in the next part (and the comments ending
	// this one may belong to a declaration there), so grouping may start
	// afresh only at a unit before it.
	at, n := 0, 0
	grouped := groupCode(units, budget, func(u, k int) {
		if u > 0 && u < len(units)-1 {
			at, n = units[u].line-first, k
		}
	})
	if at > 0 {
		return chunks(grouped[:n]), at, partState{Imports: importsAt[at], Open: openAt[at]}
	}
	// No such place: the part's end cuts the last unit, the one place
	// where the chunks can differ from the whole file's.
	return chunks(grouped), len(lines), partState{Imports: inImports, Open: openAt[len(lines)]}
}

// codeUnit is a declaration with its comments, or a run of imports.
type codeUnit struct {
	piece
	imports bool
}

// groupCode makes chunks of units: imports apart from declarations, small
// neighbours together, big declarations cut into even parts.
// reset(u, n), when not nil, is called wherever grouping starts afresh at
// units[u] with n pieces out so far.
func groupCode(units []codeUnit, budget int, reset func(u, n int)) []piece {
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
	for i, u := range units {
		if strings.TrimSpace(u.text) == "" {
			continue
		}
		t := EstimateTokens(u.text)
		if t > budget || (len(cur) > 0 && (u.imports != curImports || tokens+t > small)) {
			flush()
		}
		if reset != nil && len(cur) == 0 {
			reset(i, len(out))
		}
		if t > budget {
			out = append(out, splitLines(u.piece, budget)...)
			continue
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
	is, _ := importLinesFrom(lines, 0)
	return is
}

// importLinesFrom is importLines for lines that start with open brackets
// of an import statement left open; it also says how many were open before
// each line (and after the last).
func importLinesFrom(lines []string, open int) ([]bool, []int) {
	is := make([]bool, len(lines))
	openAt := make([]int, len(lines)+1)
	for i, l := range lines {
		openAt[i] = open
		if open > 0 || importLine.MatchString(l) {
			is[i] = true
			open = max(0, open+strings.Count(l, "(")+strings.Count(l, "{")-strings.Count(l, ")")-strings.Count(l, "}"))
		}
	}
	openAt[len(lines)] = open
	return is, openAt
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

// codeLanguages are chunked by declarations.
var codeLanguages = map[string]bool{
	"go": true, "python": true, "javascript": true, "typescript": true, "rust": true, "java": true, "kotlin": true,
	"c": true, "cpp": true, "csharp": true, "ruby": true, "php": true, "swift": true, "scala": true, "shell": true,
	"sql": true, "lua": true, "elixir": true, "haskell": true, "zig": true,
}

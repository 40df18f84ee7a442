package chunking

import (
	"fmt"
	"regexp"
	"strings"
)

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

// WithoutImports is code without its package clause and import lines.
func WithoutImports(text string) string {
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

// codeLanguages are chunked by declarations.
// IsCode reports whether language is one chunked by declarations.
func IsCode(language string) bool { return codeLanguages[language] }

var codeLanguages = map[string]bool{
	"go": true, "python": true, "javascript": true, "typescript": true, "rust": true, "java": true, "kotlin": true,
	"c": true, "cpp": true, "csharp": true, "ruby": true, "php": true, "swift": true, "scala": true, "shell": true,
	"sql": true, "lua": true, "elixir": true, "haskell": true, "zig": true,
}

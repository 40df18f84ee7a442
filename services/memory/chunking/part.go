package chunking

import (
	"encoding/json"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// A file larger than a bus message arrives in parts, each chunked as it
// comes, so neither side ever holds the whole file. To give the chunks (and
// so their ids) a whole-file chunking gives, a part is chunked only up to
// the last line where chunking starts afresh, a place where nothing of
// what came before is carried on but a small state (the heading path, an
// open fence or import statement). The reply names that place; the next
// part starts there and carries the state back. Only where no such place
// falls inside a part (a paragraph, section or declaration longer than a
// part) is the cut made at the part's end, and the chunks there may differ
// from a whole-file chunking's.

// partState is where chunking a file stands at the start of a part: what
// a whole-file chunking would carry over from the text before it.
type partState struct {
	Path    []string `json:"path,omitempty"`    // Markdown: the heading path
	Fence   bool     `json:"fence,omitempty"`   // Markdown: a code fence is open
	Section int      `json:"section,omitempty"` // Markdown: the line the open section started at
	Imports bool     `json:"imports,omitempty"` // code: in the package clause and imports
	Open    int      `json:"open,omitempty"`    // code: brackets an import statement left open
}

// resumeAt is a line of a part where chunking starts afresh: the chunks
// before it are final, and the next part starts there in state.
type resumeAt struct {
	line   int
	chunks []Chunk
	state  partState
}

// PartChunks is what chunking a part gave.
type PartChunks struct {
	Chunks []Chunk
	// Used is how many bytes of the part the chunks cover; the next part
	// starts after them, at line NextLine, with Resume.
	Used     int
	NextLine int
	Resume   string
}

// Part chunks text, the part of a file that starts at line first
// with resume from the previous part's reply; more says the file goes on
// after text.
func Part(text, language string, budget, first int, resume string, more bool) (PartChunks, error) {
	var st partState
	if resume != "" {
		if err := json.Unmarshal([]byte(resume), &st); err != nil {
			return PartChunks{}, contract.Errorf(contract.CodeInvalidRequest,
				"resume is not what the previous part's reply gave: send the file again from its start").With("field", "resume")
		}
	}
	if first <= 0 {
		first = 1
	}
	norm := strings.ReplaceAll(text, "\r\n", "\n")
	var chunks []Chunk
	var at int
	switch {
	case language == "markdown":
		chunks, at, st = chunkMarkdownFrom(norm, first, st, more, budget)
	case IsCode(language):
		chunks, at, st = chunkCodeFrom(norm, first, st, more, budget)
	default:
		chunks, at = chunkPlainFrom(norm, first, more, budget)
		st = partState{}
	}
	out := PartChunks{Chunks: chunks, Used: len(text), NextLine: first + strings.Count(text, "\n")}
	if lines := strings.Count(norm, "\n") + 1; at < lines {
		// at counts lines, which a \r\n ends as a \n does.
		out.Used = lineOffset(text, at)
		out.NextLine = first + at
	}
	if more {
		b, _ := json.Marshal(st)
		if out.Resume = string(b); out.Resume == "{}" {
			out.Resume = ""
		}
	}
	return out, nil
}

// chunkPlainFrom is Text for text other than Markdown and code, for
// text that starts at line first; with more, as chunkMarkdownFrom.
func chunkPlainFrom(text string, first int, more bool, budget int) ([]Chunk, int) {
	pieces := paragraphs(text, first)
	lines := strings.Count(text, "\n") + 1
	if !more {
		return pack(pieces, budget, ""), lines
	}
	// A paragraph the part's end cuts is shorter than the whole one: when
	// it starts a chunk afresh here, it would in the whole file too.
	at, n := 0, 0
	packed := packPiecesResets(pieces, budget, func(i, k int) {
		if i > 0 {
			at, n = pieces[i].line-first, k
		}
	})
	if at > 0 {
		return named(packed[:n], ""), at
	}
	return named(packed, ""), lines
}

// lineOffset is the byte offset of line n (from 0) of text.
func lineOffset(text string, n int) int {
	off := 0
	for ; n > 0; n-- {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	return off
}

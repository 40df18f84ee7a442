package bert

import (
	"bufio"
	"io"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// maxWordChars is where WordPiece gives up on a word and calls it [UNK],
// as BERT's tokenizer does.
const maxWordChars = 100

// Tokenizer is BERT uncased's: basic tokenization (clean, split CJK
// characters and punctuation, lowercase, strip accents) then greedy
// longest-match-first WordPiece with "##" continuations.
type Tokenizer struct {
	vocab map[string]int32
	// The special tokens' ids.
	cls, sep, unk, pad int32
}

// ReadVocab reads vocab.txt, one token a line, its id the line's number.
func ReadVocab(r io.Reader) (*Tokenizer, error) {
	t := &Tokenizer{vocab: make(map[string]int32, 32768)}
	sc := bufio.NewScanner(r)
	var n int32
	for sc.Scan() {
		tok := strings.TrimRight(sc.Text(), "\r")
		if _, dup := t.vocab[tok]; !dup {
			t.vocab[tok] = n
		}
		n++
	}
	if err := sc.Err(); err != nil {
		return nil, contract.Errorf(contract.CodeEngine, "reading the vocabulary: %v", err)
	}
	for _, s := range []struct {
		name string
		id   *int32
	}{{"[CLS]", &t.cls}, {"[SEP]", &t.sep}, {"[UNK]", &t.unk}, {"[PAD]", &t.pad}} {
		id, ok := t.vocab[s.name]
		if !ok {
			return nil, contract.Errorf(contract.CodeEngine, "the vocabulary has no %s token", s.name)
		}
		*s.id = id
	}
	return t, nil
}

// Size is the number of distinct tokens.
func (t *Tokenizer) Size() int { return len(t.vocab) }

// Encoding is a model's input: token ids and which segment each belongs to.
type Encoding struct {
	IDs   []int32
	Types []int32
}

// Encode is [CLS] text [SEP], cut to maxLen tokens in all.
func (t *Tokenizer) Encode(text string, maxLen int) Encoding {
	ids := t.Tokenize(text)
	if n := maxLen - 2; len(ids) > n {
		ids = ids[:max(n, 0)]
	}
	e := Encoding{IDs: make([]int32, 0, len(ids)+2)}
	e.IDs = append(append(append(e.IDs, t.cls), ids...), t.sep)
	e.Types = make([]int32, len(e.IDs))
	return e
}

// EncodePair is [CLS] a [SEP] b [SEP], b's tokens of type 1, cut to
// maxLen by taking a token from the longer side until it fits (the
// "longest first" strategy of Hugging Face's tokenizers).
func (t *Tokenizer) EncodePair(a, b string, maxLen int) Encoding {
	x, y := t.Tokenize(a), t.Tokenize(b)
	for len(x)+len(y) > maxLen-3 && len(x)+len(y) > 0 {
		if len(x) > len(y) {
			x = x[:len(x)-1]
		} else {
			y = y[:len(y)-1]
		}
	}
	e := Encoding{IDs: make([]int32, 0, len(x)+len(y)+3)}
	e.IDs = append(append(e.IDs, t.cls), x...)
	e.IDs = append(append(e.IDs, t.sep), y...)
	e.IDs = append(e.IDs, t.sep)
	e.Types = make([]int32, len(e.IDs))
	for i := len(x) + 2; i < len(e.Types); i++ {
		e.Types[i] = 1
	}
	return e
}

// Tokenize returns the WordPiece ids of text, without special tokens.
func (t *Tokenizer) Tokenize(text string) []int32 {
	var ids []int32
	for _, w := range basicTokens(text) {
		ids = t.wordPiece(w, ids)
	}
	return ids
}

// wordPiece appends word's pieces, longest prefix first, or [UNK] when
// some part of it has no piece.
func (t *Tokenizer) wordPiece(word string, ids []int32) []int32 {
	runes := []rune(word)
	if len(runes) > maxWordChars {
		return append(ids, t.unk)
	}
	start, n := 0, len(ids)
	for start < len(runes) {
		end, found := len(runes), int32(-1)
		for ; end > start; end-- {
			piece := string(runes[start:end])
			if start > 0 {
				piece = "##" + piece
			}
			if id, ok := t.vocab[piece]; ok {
				found = id
				break
			}
		}
		if found < 0 {
			return append(ids[:n], t.unk)
		}
		ids = append(ids, found)
		start = end
	}
	return ids
}

// basicTokens cleans text and splits it into words and punctuation,
// lowercased and without accents.
func basicTokens(text string) []string {
	var b strings.Builder
	for _, r := range text {
		switch {
		case r == 0 || r == 0xFFFD || isControl(r):
		case isWhitespace(r):
			b.WriteByte(' ')
		case isCJK(r):
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	var out []string
	for _, w := range strings.Fields(b.String()) {
		out = splitPunct(stripAccents(strings.ToLower(w)), out)
	}
	return out
}

// stripAccents decomposes and drops the combining marks: "café" → "cafe".
func stripAccents(s string) string {
	d := norm.NFD.String(s)
	var b strings.Builder
	for _, r := range d {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// splitPunct appends w cut around each punctuation character, which
// becomes a token of its own.
func splitPunct(w string, out []string) []string {
	start := 0
	for i, r := range w {
		if isPunct(r) {
			if i > start {
				out = append(out, w[start:i])
			}
			out = append(out, string(r))
			start = i + len(string(r))
		}
	}
	if start < len(w) {
		out = append(out, w[start:])
	}
	return out
}

// isWhitespace is Unicode's White_Space; the control characters among it
// (but tab and line ends) are dropped before it is asked.
func isWhitespace(r rune) bool { return unicode.IsSpace(r) }

// isControl is Unicode's "other" categories but tab and line ends.
func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.Is(unicode.C, r)
}

// isPunct counts all non-alphanumeric ASCII as punctuation ("$", "^",
// "`"), as BERT does, besides Unicode's punctuation.
func isPunct(r rune) bool {
	if (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126) {
		return true
	}
	return unicode.IsPunct(r)
}

// isCJK is the CJK Unified Ideographs blocks BERT splits character by
// character (not Hangul, Hiragana or Katakana, which are written with
// spaces or split by WordPiece).
func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) || (r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B820 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}

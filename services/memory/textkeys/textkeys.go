// Package textkeys turns text into the keys of the memory service's keyword
// index. The index and its queries must see text the same way, so both
// take their keys from here, the way SQLite's "porter unicode61
// remove_diacritics 2" tokenizer made them when the index lived in FTS5: a
// token is a run of letters and digits, lowercased, with accents folded on
// Latin letters (café → cafe), and stemmed by Porter's algorithm when it is
// plain ASCII; a British spelling takes its American form's key (colour,
// color; spelling.go). A symbol such as an emoji is a token of its own.
package textkeys

import (
	"unicode"
	"unicode/utf8"
)

// maxStemmed is the longest token that is stemmed; longer ones (hashes,
// identifiers) are kept whole.
const maxStemmed = 64

// latinFold maps the lowercase Latin letters U+00C0..U+017F to their base
// letter; '.' means the rune has none (æ, ß, đ...) and stays as it is.
const latinFold = "aaaaaa.ceeeeiiii.nooooo..uuuuy..aaaaaa.ceeeeiiii.nooooo..uuuuy.yaaaaaaccccccccdd..eeeeeeeeeegggggggghh..iiiiiiiii...jjkk.llllll....nnnnnn...oooooo..rrrrrrsssssssstttt..uuuuuuuuuuuuwwyyyzzzzzz."

func fold(r rune) rune {
	if r >= 0xC0 && r < 0xC0+rune(len(latinFold)) {
		if b := latinFold[r-0xC0]; b != '.' {
			return rune(b)
		}
	}
	return r
}

// Tokenizer turns text into index keys, reusing one buffer; the zero value
// is ready. It is not safe for concurrent use.
type Tokenizer struct{ buf []byte }

// Each calls fn with every token's key in text, in order. The key is only
// valid during the call.
func (t *Tokenizer) Each(text string, fn func(key []byte)) {
	t.buf = t.buf[:0]
	ascii := true
	flush := func() {
		if len(t.buf) == 0 {
			return
		}
		key := t.buf
		if ascii && len(key) <= maxStemmed && lettersOnly(key) {
			key = porterStem(key)
			if us, ok := spellings[string(key)]; ok {
				key = append(key[:0], us...)
			}
		}
		fn(key)
		t.buf, ascii = t.buf[:0], true
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				t.buf = append(t.buf, c)
			case 'A' <= c && c <= 'Z':
				t.buf = append(t.buf, c+'a'-'A')
			default:
				flush()
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		switch {
		case unicode.Is(unicode.Mn, r):
			// A combining accent belongs to the letter before it and is dropped.
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r):
			r = fold(unicode.ToLower(r))
			if r >= utf8.RuneSelf {
				ascii = false
			}
			t.buf = utf8.AppendRune(t.buf, r)
		case IsSymbol(r):
			flush()
			t.buf = utf8.AppendRune(t.buf, r)
			ascii = false
			flush()
		default:
			flush()
		}
	}
	flush()
}

// IsSymbol reports whether r is a symbol that is a word by itself: an emoji
// or another pictograph (Unicode category So). Skin-tone modifiers,
// variation selectors and joiners are not.
func IsSymbol(r rune) bool {
	return r >= utf8.RuneSelf && unicode.Is(unicode.So, r)
}

func lettersOnly(b []byte) bool {
	for _, c := range b {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// Keys returns the distinct index keys of a query's terms, in order.
func Keys(terms []string) []string {
	var t Tokenizer
	seen := make(map[string]bool, len(terms))
	out := make([]string, 0, len(terms))
	for _, term := range terms {
		t.Each(term, func(k []byte) {
			if !seen[string(k)] {
				seen[string(k)] = true
				out = append(out, string(k))
			}
		})
	}
	return out
}

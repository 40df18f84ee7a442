package contract

import "unicode/utf8"

// AppendIndentedString appends to dst the JSON string whose text is b laid
// out as IndentJSON lays it out, written as Marshal writes a string
// (no HTML escaping; U+2028, U+2029 and invalid UTF-8 escaped as
// encoding/json escapes them), in one pass over b: an MCP tool result's
// text content is its result indented, and indenting it, then quoting the
// copy, read and wrote every byte twice more. b must be valid JSON
// (ValidJSON), as a result is once it came off the bus; other input gives
// a string, but not a meaningful one.
func AppendIndentedString(dst, b []byte) []byte {
	dst = append(dst, '"')
	return append(appendIndented(dst, b, true), '"')
}

// appendIndented appends b laid out as IndentJSON lays it out; quoted, it
// writes the layout as the text of a JSON string (without its quotes), so
// that indenting and quoting are one pass. It is the one indenter of both.
func appendIndented(dst, b []byte, quoted bool) []byte {
	depth := 0
	newline := func() {
		if quoted {
			dst = append(dst, '\\', 'n')
		} else {
			dst = append(dst, '\n')
		}
		for range depth {
			dst = append(dst, ' ', ' ')
		}
	}
	raw := func(c byte) {
		if quoted {
			dst = appendStringByte(dst, c)
		} else {
			dst = append(dst, c)
		}
	}
	i := skipSpace(b, 0)
	for i < len(b) {
		switch c := b[i]; c {
		case ' ', '\t', '\n', '\r':
			if depth == 0 { // after the value: kept, as json.Indent keeps it
				for _, c := range b[i:] {
					raw(c)
				}
				return dst
			}
			i++
			continue
		case '"':
			if quoted {
				dst, i = appendQuotedString(dst, b, i)
				continue
			}
			end := scanString(b, i)
			if end < 0 {
				end = len(b)
			}
			dst = append(dst, b[i:end]...)
			i = end
			continue
		case '{', '[':
			dst = append(dst, c)
			if j := skipSpace(b, i+1); j < len(b) && (b[j] == '}' || b[j] == ']') {
				dst = append(dst, b[j])
				i = j + 1
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth = max(depth-1, 0)
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, ',')
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		default: // numbers and literals, copied whole: none of their bytes is escaped
			if j := skipLiteral(b, i); j > i {
				dst = append(dst, b[i:j]...)
				i = j
				continue
			}
			raw(c)
		}
		i++
	}
	return dst
}

// literalByte marks the bytes of numbers, true, false and null.
var literalByte = func() (t [256]bool) {
	for _, c := range []byte("0123456789+-.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		t[c] = true
	}
	return t
}()

func skipLiteral(b []byte, i int) int {
	for i < len(b) && literalByte[b[i]] {
		i++
	}
	return i
}

// appendQuotedString appends the JSON string token opening at b[i] as text
// inside a JSON string (its quotes and backslashes escaped, the rest as
// encoding/json writes it) and returns the index just past the token. It
// finds the token's end as it goes, copying runs of plain text eight bytes
// at a time: scanning for the end first, then quoting, read every byte of
// a result's text twice, a byte at a time.
func appendQuotedString(dst, b []byte, i int) ([]byte, int) {
	dst = append(dst, '\\', '"')
	i++
	for {
		j := skipText(b, i)
		dst = append(dst, b[i:j]...)
		if i = j; i >= len(b) {
			return dst, i
		}
		switch c := b[i]; {
		case c == '"':
			return append(dst, '\\', '"'), i + 1
		case c == '\\':
			// An escape: the backslash is escaped, and the byte after it
			// too if it is a quote or a backslash, so that it does not end
			// the token or start another escape.
			dst = append(dst, '\\', '\\')
			if i++; i < len(b) && b[i] < utf8.RuneSelf {
				dst = appendStringByte(dst, b[i])
				i++
			}
		case c < utf8.RuneSelf: // a control byte: not valid JSON, escaped all the same
			dst = appendStringByte(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			var escaped bool
			if dst, escaped = appendEscapedRune(dst, r, size); !escaped {
				dst = append(dst, b[i:i+size]...)
			}
			i += size
		}
	}
}

// appendEscapedRune appends r, a rune of size bytes outside ASCII, as
// encoding/json escapes it, and reports whether it did: invalid UTF-8 as
// the replacement character, U+2028 and U+2029 (line breaks to
// JavaScript) as \u escapes. Any other rune is copied as it is, by the
// caller.
func appendEscapedRune(dst []byte, r rune, size int) ([]byte, bool) {
	switch {
	case r == utf8.RuneError && size == 1:
		return append(dst, `\ufffd`...), true
	case r == '\u2028' || r == '\u2029':
		return append(dst, '\\', 'u', '2', '0', '2', "0123456789abcdef"[r&0xF]), true
	}
	return dst, false
}

// appendStringByte appends the ASCII byte c as encoding/json writes it
// inside a string.
func appendStringByte(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	if c < 0x20 {
		return append(dst, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xF])
	}
	return append(dst, c)
}

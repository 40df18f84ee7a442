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
			end := scanString(b, i)
			if end < 0 {
				end = len(b)
			}
			if quoted {
				dst = appendQuotedText(dst, b[i:end])
			} else {
				dst = append(dst, b[i:end]...)
			}
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
		default: // numbers and literals
			raw(c)
		}
		i++
	}
	return dst
}

// appendQuotedText appends s, a JSON string token quotes included, as text
// inside a JSON string: its quotes and backslashes escaped, the rest as
// encoding/json writes it.
func appendQuotedText(dst, s []byte) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendStringByte(dst, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		} else if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', "0123456789abcdef"[r&0xF])
		} else {
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
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

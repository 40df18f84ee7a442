package contract

import (
	"bytes"
	"encoding/json"
)

// MaxJSONDepth is how deeply arrays and objects may nest, encoding/json's
// limit: deeper input is refused before anything decodes it.
const MaxJSONDepth = 10000

// ValidJSON reports whether b is one JSON value, as json.Valid does (the
// same grammar, strings not checked for UTF-8, nesting up to MaxJSONDepth),
// in one pass without a call per byte: every result that crosses the bus
// is checked, and json.Valid took as long as encoding the result.
func ValidJSON(b []byte) bool {
	i := scanValue(b, skipSpace(b, 0))
	return i >= 0 && skipSpace(b, i) == len(b)
}

// TooDeep reports whether b is refused by ValidJSON because its arrays and
// objects nest deeper than MaxJSONDepth before any other fault: a client
// that sent such a message needs to hear that, not that it is not JSON. It
// scans again, so it is for explaining a refusal, not for the usual path.
func TooDeep(b []byte) bool {
	return scanValue(b, skipSpace(b, 0)) == tooDeep
}

// tooDeep is scanValue's answer for input nested past MaxJSONDepth.
const tooDeep = -2

// EachMember calls fn with the key (still quoted) and the value of each
// member of the JSON object b, in order, in one pass and without copying.
// It reports false, having stopped, when b is not one valid JSON object.
// A JSON-RPC message is taken apart this way: a map of raw members cost a
// decode of the whole message and an allocation for each member (about six
// times as long, BenchmarkDecode in the gateway's jsonrpc package).
func EachMember(b []byte, fn func(key, value []byte)) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		k := i
		if i = scanString(b, i); i < 0 {
			return false
		}
		key := b[k:i]
		if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
			return false
		}
		v := skipSpace(b, i+1)
		if i = scanValue(b, v); i < 0 {
			return false
		}
		fn(key, b[v:i])
		if i = skipSpace(b, i); i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// scanValue returns the index just past the JSON value starting at b[i],
// tooDeep when it nests past MaxJSONDepth, or -1 when there is none.
func scanValue(b []byte, i int) int {
	const (
		value = iota // a value must come next
		after        // a value ended
		key          // an object's key must come next
	)
	var stack []byte // '{' or '[' for each open container
	state := value
	for {
		switch state {
		case value:
			if i >= len(b) {
				return -1
			}
			if c := b[i]; c == '{' || c == '[' {
				if len(stack) >= MaxJSONDepth {
					return tooDeep
				}
				end := byte('}')
				if c == '[' {
					end = ']'
				}
				i = skipSpace(b, i+1)
				if i < len(b) && b[i] == end {
					i++
					state = after
					continue
				}
				stack = append(stack, c)
				if c == '{' {
					state = key
				}
				continue
			}
			if i = scanScalar(b, i); i < 0 {
				return -1
			}
			state = after
		case after:
			if len(stack) == 0 {
				return i
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return -1
			}
			top := stack[len(stack)-1]
			switch c := b[i]; {
			case c == ',':
				i = skipSpace(b, i+1)
				state = value
				if top == '{' {
					state = key
				}
			case c == '}' && top == '{' || c == ']' && top == '[':
				stack = stack[:len(stack)-1]
				i++
			default:
				return -1
			}
		case key:
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			if i = scanString(b, i); i < 0 {
				return -1
			}
			i = skipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return -1
			}
			i = skipSpace(b, i+1)
			state = value
		}
	}
}

// scanScalar returns the index just past the string, number, true, false
// or null starting at b[i], or -1 when there is none.
func scanScalar(b []byte, i int) int {
	switch c := b[i]; {
	case c == '"':
		return scanString(b, i)
	case c == '-' || c >= '0' && c <= '9':
		return scanNumber(b, i)
	case c == 't':
		return scanLiteral(b, i, "true")
	case c == 'f':
		return scanLiteral(b, i, "false")
	case c == 'n':
		return scanLiteral(b, i, "null")
	}
	return -1
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// scanString returns the index just past the string opening at b[i], or -1.
func scanString(b []byte, i int) int {
	for i++; ; i++ {
		if i = skipString(b, i); i >= len(b) {
			return -1
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return -1
				}
				for _, h := range b[i+1 : i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		}
	}
}

// scanNumber returns the index just past the number starting at b[i], or -1.
func scanNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if j := digits(b, i+1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if j := digits(b, i); j > i {
			i = j
		} else {
			return -1
		}
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func scanLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// IndentJSON returns b, a valid JSON value, laid out as json.Indent lays it
// out with no prefix and two spaces per level: one element or member a
// line, ": " after keys, empty containers kept as {} and [], strings and
// numbers as they are, leading space dropped and trailing space kept. For
// invalid JSON it returns false. Tool results are indented for every MCP
// call, and json.Indent's scanner took as long as the rest of the call's
// JSON work.
func IndentJSON(b []byte) ([]byte, bool) {
	if !ValidJSON(b) {
		return nil, false
	}
	return appendIndented(make([]byte, 0, len(b)+len(b)/2), b, false), true
}

// Marshal encodes v as compact JSON without escaping <, > and &: results are
// read by people and models, not embedded in HTML.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// JSONAppender is a value that writes its own JSON: the bytes Marshal
// writes for it, appended to dst without reflection. A result that a hot
// tool returns on every call (memory.fetch's twenty hits) implements it;
// encoding/json spent a tenth of a fetch's CPU outside retrieval walking
// its struct. A value that cannot be encoded (a NaN score) returns an
// error, as Marshal would.
type JSONAppender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

// AppendMarshal appends v encoded as Marshal encodes it: by its own
// AppendJSON when it is a JSONAppender, else by encoding/json.
func AppendMarshal(dst []byte, v any) ([]byte, error) {
	if a, ok := v.(JSONAppender); ok {
		return a.AppendJSON(dst)
	}
	buf := bytes.NewBuffer(dst)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// AppendString appends s as a JSON string, as Marshal writes it.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		j := skipText(s, i)
		dst = append(dst, s[i:j]...)
		if i = j; i >= len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			dst = appendStringByte(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		var escaped bool
		if dst, escaped = appendEscapedRune(dst, r, size); !escaped {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// AppendFloat appends f as Marshal writes a float64: the shortest form
// that reads back the same, in exponent form only below 1e-6 and from
// 1e21 up. NaN and the infinities have none: an error, as from Marshal.
func AppendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' { // e-07 is written e-7
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

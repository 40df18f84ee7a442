package contract

import "math/bits"

// Runs of a JSON string's plain bytes are found eight at a time: a result
// crossing the bus is mostly text, and its every byte is scanned to check
// the reply and again to indent and quote it into MCP's text content.

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// stopMask has the high bit of each byte of x (eight bytes of a string,
// the first lowest) that is a quote, a backslash or a control byte, and
// of none before the first such byte (bits above it may be set wrongly,
// which only the lowest set bit's users can afford).
func stopMask(x uint64) uint64 {
	q := x ^ (lowBits * '"')
	s := x ^ (lowBits * '\\')
	return ((x - lowBits*0x20) &^ x & highBits) | ((q - lowBits) &^ q & highBits) | ((s - lowBits) &^ s & highBits)
}

// skipString returns the index of the first quote, backslash or control
// byte at or after b[i], or len(b): what scanString stops at.
func skipString(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := stopMask(le64(b, i)); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(b) && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\' {
		i++
	}
	return i
}

// skipText is skipString that stops at bytes outside ASCII too: what
// quoting copies unchanged.
func skipText[T string | []byte](b T, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := le64(b, i)
		if m := stopMask(x) | x&highBits; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(b) && b[i] >= 0x20 && b[i] < 0x80 && b[i] != '"' && b[i] != '\\' {
		i++
	}
	return i
}

// le64 is the eight bytes at b[i], the first lowest.
func le64[T string | []byte](b T, i int) uint64 {
	b = b[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

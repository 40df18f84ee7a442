package contract

import "testing"

func TestCheckCitations(t *testing.T) {
	for _, tc := range []struct {
		in, out string
		valid   int
	}{
		{"A [1] and B [2].", "A [1] and B [2].", 2},
		{"A [0] [3] [4]", "A [3]", 1},
		{"Both [1, 2; 3].", "Both [1][2][3].", 3},
		{"None [9].", "None.", 0},
		{"Line one [1]\nline two [2]", "Line one [1]\nline two [2]", 2},
		{"Array [x] stays [1]", "Array [x] stays [1]", 1},
	} {
		out, valid := CheckCitations(tc.in, 3)
		if out != tc.out || valid != tc.valid {
			t.Errorf("%q → %q (%d), want %q (%d)", tc.in, out, valid, tc.out, tc.valid)
		}
	}
}

package editdistance

import "testing"

func TestOSA(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"ENABLE", "ENABLED", 1},
		{"same", "same", 0}, {"SEARXGN", "SEARXNG", 1}, {"ca", "abc", 3}, {"héllo", "hello", 1},
	} {
		if got := OSA(tc.a, tc.b); got != tc.want {
			t.Errorf("OSA(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

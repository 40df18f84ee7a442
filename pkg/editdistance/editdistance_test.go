package editdistance

import (
	"math/rand"
	"slices"
	"testing"
)

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

func TestNearest(t *testing.T) {
	names := []string{"NATS_URL", "NATS_USER", "REDIS_URL", "NAT_URL"}
	for _, tc := range []struct {
		s    string
		n    int
		want []string
	}{
		{"NATS_URI", 2, []string{"NATS_URL", "NAT_URL"}}, // 1 and 2 edits; NATS_USER is 3
		{"NAT_URL", 1, []string{"NAT_URL"}},
		{"x", 9, []string{"NAT_URL", "NATS_URL", "NATS_USER", "REDIS_URL"}}, // a tie keeps the order given
		{"x", 0, []string{}},
	} {
		if got := Nearest(tc.s, names, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("Nearest(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// Within agrees with OSA on every pair and bound, ASCII or not.
func TestWithin(t *testing.T) {
	words := []string{"", "a", "ab", "ba", "abc", "acb", "kitten", "sitting", "postgres", "postgress", "pstgres",
		"deployment", "deploymnet", "dpeloymnte", "héllo", "hello", "SEARXGN", "SEARXNG", "abcdefgh", "xbcdefgy"}
	for _, a := range words {
		for _, b := range words {
			d := OSA(a, b)
			for k := 0; k <= 3; k++ {
				if got := Within(a, b, k); got != (d <= k) {
					t.Errorf("Within(%q, %q, %d) = %v, OSA is %d", a, b, k, got, d)
				}
			}
		}
	}
	// And on random words of a small alphabet, where near misses abound.
	r := rand.New(rand.NewSource(1))
	word := func() string {
		b := make([]byte, r.Intn(10))
		for i := range b {
			b[i] = "abc"[r.Intn(3)]
		}
		return string(b)
	}
	for range 20000 {
		a, b, k := word(), word(), r.Intn(4)
		if got, d := Within(a, b, k), OSA(a, b); got != (d <= k) {
			t.Fatalf("Within(%q, %q, %d) = %v, OSA is %d", a, b, k, got, d)
		}
	}
}

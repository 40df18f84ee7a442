package retrieval

import "testing"

func TestAkin(t *testing.T) {
	for _, c := range []struct {
		a, b string
		akin bool
	}{
		{"phone", "landline", true}, {"home", "house", true}, {"restaurant", "cafe", true},
		{"shoe", "waist", false}, {"email", "home", false}, {"food", "color", false},
		{"work", "home", false}, {"gitlab", "github", false},
	} {
		if got := Akin(c.a, c.b); got != c.akin {
			t.Errorf("Akin(%q, %q) = %v, want %v", c.a, c.b, got, c.akin)
		}
	}
}

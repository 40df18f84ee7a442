package retrieval

import (
	"sync"

	"github.com/openhuman-go/openhuman-go/services/memory/glove"
	"github.com/openhuman-go/openhuman-go/services/memory/vectorindex"
)

// A move to a name ("I moved to Berlin") is a move of home, but a name
// may as well be a tool's ("I moved to Slack", "to Neovim from VS
// Code") or a team's ("to Marketing"), and moving is said of both. GloVe
// tells them apart well enough for the names it knows: a place's vector
// is nearer the places below than the tools, teams and jobs after them.
// A name it does not know ("Neovim") tells nothing either way.
var (
	placeWords = []string{"city", "town", "country", "village", "berlin", "paris", "london", "texas",
		"california", "tokyo", "ohio", "france"}
	notPlaceWords = []string{"software", "app", "platform", "tool", "editor", "language", "team", "department",
		"company", "service", "framework", "database", "system", "program", "browser", "phone", "version",
		"plan", "job", "role", "position", "division"}
)

// notAPlace is how far a name's vector must lean to the tools to be
// read as none of the places: a little, since short names of places
// ("SF", "UK") lean there slightly and most tools far (Slack, Linear,
// Notion, Marketing, "VS Code"). Chosen on a list of names written here,
// not on an evaluation's data.
const notAPlace = -0.08

var placeProtos = sync.OnceValues(func() ([]float32, []float32) {
	return centroid(placeWords), centroid(notPlaceWords)
})

func centroid(words []string) []float32 {
	c := make([]float32, glove.Dim())
	v := make([]float32, glove.Dim())
	for _, w := range words {
		if r, ok := glove.Rank(w); ok {
			clear(v)
			glove.AddTo(v, r, 1)
			for i, x := range vectorindex.Normalize(v) {
				c[i] += x
			}
		}
	}
	return vectorindex.Normalize(c)
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// akinCosine is the GloVe cosine from which two words that say the kind
// of an attribute say the same kind: "phone" and "landline" (0.61),
// "home" and "house" (0.67), not "shoe" and "waist" (0.37), "email" and
// "home" (0.21) or "work" and "home" (0.57). Chosen on a list of pairs
// written here, and GloVe's noise is close: "movie" and "book" read 0.63.
const akinCosine = 0.58

// Akin reports whether GloVe reads two lowercase words as near in
// meaning (akinCosine); false when it does not know one of them.
func Akin(a, b string) bool {
	ra, ok := glove.Rank(a)
	rb, ok2 := glove.Rank(b)
	if !ok || !ok2 {
		return false
	}
	return glove.Cosine(ra, rb) >= akinCosine
}

// namesNoPlace reports whether the words of a name (lowercase) read, in
// GloVe, as a tool's, a team's or a job's rather than a place's; false
// when GloVe knows none of them.
func namesNoPlace(words []string) bool {
	v := make([]float32, glove.Dim())
	known := false
	for _, w := range words {
		if r, ok := glove.Rank(w); ok {
			glove.AddTo(v, r, 1)
			known = true
		}
	}
	if !known {
		return false
	}
	place, other := placeProtos()
	vectorindex.Normalize(v)
	return dot(v, place)-dot(v, other) < notAPlace
}

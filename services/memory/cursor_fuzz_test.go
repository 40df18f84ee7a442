package memory

import (
	"math"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// FuzzCursor: any string passed as a cursor is either refused with
// INVALID_REQUEST naming the cursor argument, or is exactly a cursor this
// server makes for the query at hand: no negative position, and no ranked
// page at maxDepth or beyond, where no next_cursor ever points (a huge
// offset, added to, wrapped around and panicked).
func FuzzCursor(f *testing.F) {
	const want = "9c1d2e3f4a5b"
	for _, c := range []cursor{{Before: 42, For: want}, {AsOf: 7, Offset: 20, For: want}, {For: "other"}, {Before: -1, For: want},
		{AsOf: 7, Offset: maxDepth - 1, For: want}, {AsOf: 7, Offset: maxDepth, For: want}, {AsOf: 7, Offset: math.MaxInt, For: want},
		{AsOf: 7, Offset: math.MaxInt - 10, For: want}, {AsOf: 7, Offset: 1 << 40, For: want}, {AsOf: math.MaxInt64, Before: math.MaxInt64, For: want}} {
		f.Add(c.encode())
	}
	f.Add("")
	f.Add("eyJiIjo1LCJmIjoiOWMxZDJlM2Y0YTViIiwiQiI6M30")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := decodeCursor(s, want)
		if err != nil {
			ce, ok := err.(*contract.Error)
			if !ok || ce.Code != contract.CodeInvalidRequest || ce.Data["field"] != "cursor" {
				t.Fatalf("%q refused with %#v", s, err)
			}
			return
		}
		if s == "" {
			if c != (cursor{}) {
				t.Fatalf("no cursor decoded as %+v", c)
			}
			return
		}
		if c.encode() != s || c.For != want || c.Before < 0 || c.Offset < 0 || c.Offset >= maxDepth || c.AsOf < 0 {
			t.Fatalf("%q accepted as %+v", s, c)
		}
	})
}

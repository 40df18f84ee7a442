package memory

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// cursor is the opaque position of a page. AsOf pins the page sequence to
// the items that existed when the first page was served, so items written
// meanwhile neither shift later pages nor appear in them. For ties it to the
// arguments that made it, so a cursor reused with other arguments is
// refused instead of silently skipping or repeating items.
type cursor struct {
	AsOf   int64  `json:"a,omitempty"` // newest seq the pages consider
	Before int64  `json:"b,omitempty"` // list: next page holds seq < Before
	Offset int    `json:"o,omitempty"` // ranked results: position of the next page
	After  int64  `json:"n,omitempty"` // export: next page holds seq > After
	For    string `json:"f"`
}

func (c cursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s, want string) (cursor, error) {
	var c cursor
	if s == "" {
		return c, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	// Only the exact bytes encode makes are a cursor: the JSON decoder and
	// the base64 alphabet both forgive variants (keys in another case or
	// order, stray members, spare bits), and an edited cursor is one. The
	// fingerprint is no secret, so a cursor can be forged: its numbers are
	// held to what the server makes, a ranked page never starting at
	// maxDepth or beyond (the offset is added to, and must not wrap).
	if err != nil || c.Before < 0 || c.After < 0 || c.Offset < 0 || c.Offset >= maxDepth || c.AsOf < 0 || c.encode() != s {
		return c, contract.Errorf(contract.CodeInvalidRequest,
			"argument `cursor` is not a cursor this server made: pass next_cursor exactly as returned, or leave it out to start again").With("field", "cursor")
	}
	if c.For != want {
		return c, contract.Errorf(contract.CodeInvalidRequest,
			"argument `cursor` belongs to a different query or filter: repeat the original arguments with it, or leave it out to start again").With("field", "cursor")
	}
	return c, nil
}

// argsFingerprint ties a cursor to the arguments that made it.
func argsFingerprint(kind string, v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(append([]byte(kind+"\x00"), b...))
	return hex.EncodeToString(sum[:6])
}

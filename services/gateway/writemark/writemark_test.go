package writemark

import (
	"encoding/json"
	"testing"
)

// A write's reply is read once for the audit's id and the mark's seq, as
// json.Unmarshal reads each of them.
func TestReadWriteReplyAgreesWithUnmarshal(t *testing.T) {
	for _, raw := range []string{
		`{"id":"abc","seq":42}`, `{"ID":"x","Seq":7,"replayed":true}`, `{"id":5,"seq":9}`, `{"id":"a","seq":"9"}`,
		`{"seq":-1,"id":"\u00e9\"q"}`, `{"id":"a","id":"b","seq":1,"seq":2}`, `{}`, `null`, `[1]`, `{"seq":1.5}`, `{"seq":18446744073709551615}`,
	} {
		var id struct{ ID string }
		var seq struct{ Seq uint64 }
		_ = json.Unmarshal([]byte(raw), &id)
		_ = json.Unmarshal([]byte(raw), &seq)
		got := ReadReply(json.RawMessage(raw))
		if got.ID != id.ID || got.Seq != seq.Seq {
			t.Errorf("%s: got %+v, json.Unmarshal gives id %q seq %d", raw, got, id.ID, seq.Seq)
		}
	}
}

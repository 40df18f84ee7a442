package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// decodeByMap is Decode as it was written first, over a decoded map of
// members: the reference the one-pass Decode must agree with.
func decodeByMap(raw json.RawMessage) (*Message, *Response) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, ErrorResponse(nil, CodeInvalidRequest, "Invalid Request: a JSON-RPC message must be a JSON object", nil)
	}
	m := &Message{ID: fields["id"], Params: fields["params"]}
	if m.ID != nil && !validID(m.ID) {
		return nil, ErrorResponse(nil, CodeInvalidRequest, "Invalid Request: id must be a string or a number", nil)
	}
	var version string
	if err := json.Unmarshal(fields["jsonrpc"], &version); err != nil || version != "2.0" {
		return nil, ErrorResponse(m.ID, CodeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`, nil)
	}
	rawMethod, hasMethod := fields["method"]
	if !hasMethod {
		_, isResult := fields["result"]
		_, isError := fields["error"]
		if isResult || isError {
			return nil, nil
		}
		return nil, ErrorResponse(m.ID, CodeInvalidRequest, `Invalid Request: "method" is missing`, nil)
	}
	if err := json.Unmarshal(rawMethod, &m.Method); err != nil || m.Method == "" {
		return nil, ErrorResponse(m.ID, CodeInvalidRequest, `Invalid Request: "method" must be a non-empty string`, nil)
	}
	if bytes.Equal(bytes.TrimSpace(m.ID), null) {
		return nil, ErrorResponse(nil, CodeInvalidRequest, "Invalid Request: id must not be null", nil)
	}
	return m, nil
}

var decodeSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"memory.fetch","arguments":{"query":"x"}}}`,
	` { "jsonrpc" : "2.0" , "id" : 7 , "method" : "x" , "params" : [1, {"a": null}] } `,
	`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"a"}`,
	`{"jsonrpc":"2.0","i\u0064":3,"m\u0065thod":"t\u006fols/list"}`,
	`{"jsonrpc":"2\u002e0","id":1,"method":"x"}`,
	`{"jsonrpc":"1.0","id":1,"method":"x"}`,
	`{"id":1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":null,"method":"x"}`,
	`{"jsonrpc":"2.0","id":{},"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":""}`,
	`{"jsonrpc":"2.0","id":1,"method":null}`,
	`{"jsonrpc":"2.0","id":1,"method":3}`,
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1}}`,
	`{"jsonrpc":"2.0","id":1}`,
	`{"ID":1,"JSONRPC":"2.0","METHOD":"x"}`,
	`{}`, `[]`, `null`, `42`, `"x"`, `{"a":1,}`, `{"a" 1}`, `{`, ``,
}

func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return // Handle answers invalid JSON before Decode sees it
		}
		gotM, gotR := Decode(raw)
		wantM, wantR := decodeByMap(raw)
		if (gotR == nil) != (wantR == nil) || gotR != nil && !bytes.Equal(Encode(gotR), Encode(wantR)) {
			t.Fatalf("%s: response %+v, want %+v", raw, gotR, wantR)
		}
		if (gotM == nil) != (wantM == nil) {
			t.Fatalf("%s: message %+v, want %+v", raw, gotM, wantM)
		}
		if gotM != nil && (gotM.Method != wantM.Method || !bytes.Equal(gotM.ID, wantM.ID) || !bytes.Equal(gotM.Params, wantM.Params)) {
			t.Fatalf("%s: message %q %s %s, want %q %s %s", raw, gotM.Method, gotM.ID, gotM.Params, wantM.Method, wantM.ID, wantM.Params)
		}
	})
}

// BenchmarkDecode: a tools/call message taken apart in one pass, against
// the decoded map of members it replaced.
func BenchmarkDecode(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":17,"method":"openhuman.memory_fetch","params":{"query":"when does the on-call rotation change","limit":5,"filter":{"workspace":"ops"}}}`)
	for _, bc := range []struct {
		name   string
		decode func(json.RawMessage) (*Message, *Response)
	}{{"one pass", Decode}, {"map", decodeByMap}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if m, _ := bc.decode(msg); m == nil {
					b.Fatal("not decoded")
				}
			}
		})
	}
}

// A message that cannot run is answered with what to change: nothing sent
// at all, or JSON nested past the limit, are not "not valid JSON".
func TestHandleSaysWhyNothingRan(t *testing.T) {
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	deepParams := `{"jsonrpc":"2.0","id":1,"method":"x","params":` + deep + `}`
	for _, tc := range []struct {
		name, data, want string
	}{
		{"empty", ``, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the message is empty; send a JSON-RPC request object, or a batch array of them"}}`},
		{"only space", " \r\n\t ", `"code":-32600,"message":"Invalid Request: the message is empty`},
		{"nested too deep", deepParams, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the JSON is nested too deep (limit 10000 levels of arrays and objects); send it flatter"}}`},
		{"batch nested too deep", "[" + deepParams + "]", `"code":-32700,"message":"Parse error: the JSON is nested too deep (limit 10000`},
		{"not JSON", `{"jsonrpc":`, `"code":-32700,"message":"Parse error: the message is not valid JSON"`},
		{"batch not JSON", `[{"jsonrpc":]`, `"code":-32700,"message":"Parse error: the message is not valid JSON"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			called := false
			out := string(Handle([]byte(tc.data), 0, func(*Message) *Response { called = true; return nil }))
			if called || !strings.Contains(out, tc.want) {
				t.Errorf("called %v, got %s\nwant %s", called, out, tc.want)
			}
		})
	}
	// Just under the limit is JSON like any other.
	ok := `{"jsonrpc":"2.0","id":1,"method":"x","params":[` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `]}`
	if out := Handle([]byte(ok), 0, func(m *Message) *Response { return ResultResponse(m.ID, "ran") }); string(out) != `{"jsonrpc":"2.0","id":1,"result":"ran"}` {
		t.Errorf("9,999 levels deep: %.200s", out)
	}
}

// TestBatchAnswersAreBounded: once a batch's answers pass the budget, the
// requests left are refused each with its own id, not run; notifications
// among them are not answered; and a batch over MaxBatch is refused whole.
func TestBatchAnswersAreBounded(t *testing.T) {
	big := json.RawMessage(`"` + strings.Repeat("x", MaxBatchAnswerBytes/4) + `"`) // four pass the budget
	ran := 0
	batch := `[` +
		`{"jsonrpc":"2.0","id":1,"method":"big"},{"jsonrpc":"2.0","id":2,"method":"big"},` +
		`{"jsonrpc":"2.0","id":3,"method":"big"},{"jsonrpc":"2.0","id":4,"method":"big"},` +
		`{"jsonrpc":"2.0","method":"note"},{"jsonrpc":"2.0","id":"five","method":"big"}]`
	out := Handle([]byte(batch), MaxBatch, func(m *Message) *Response {
		ran++
		if m.Notification() {
			return nil
		}
		return ResultResponse(m.ID, big)
	})
	var answers []struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *Error          `json:"error"`
	}
	if err := json.Unmarshal(out, &answers); err != nil {
		t.Fatalf("not a JSON array: %v", err)
	}
	if ran != 4 || len(answers) != 5 {
		t.Fatalf("ran %d, answered %d; want 4 run (budget passed after the fourth) and 5 answers", ran, len(answers))
	}
	if answers[3].Error != nil || len(answers[3].Result) == 0 {
		t.Errorf("the fourth request, run within the budget: %+v", answers[3].Error)
	}
	if e := answers[4].Error; string(answers[4].ID) != `"five"` || e == nil || e.Code != CodeInvalidRequest || !strings.Contains(e.Message, "not run") {
		t.Errorf("the request past the budget: id %s, error %+v", answers[4].ID, e)
	}

	over := "[" + strings.TrimSuffix(strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"x"},`, MaxBatch+1), ",") + "]"
	ran = 0
	out = Handle([]byte(over), MaxBatch, func(m *Message) *Response { ran++; return ResultResponse(m.ID, json.RawMessage(`1`)) })
	if ran != 0 || !bytes.Contains(out, []byte("over the limit of 100")) {
		t.Errorf("a batch of %d: ran %d, answered %s", MaxBatch+1, ran, out)
	}
}

// validID takes what encoding/json takes as a string or a number, and null.
func TestValidIDAsEncodingJSON(t *testing.T) {
	asJSON := func(id []byte) bool {
		id = bytes.TrimSpace(id)
		if bytes.Equal(id, []byte("null")) {
			return true
		}
		var s string
		var n json.Number
		return len(id) > 0 && (id[0] == '"' && json.Unmarshal(id, &s) == nil || id[0] != '"' && json.Unmarshal(id, &n) == nil)
	}
	for _, id := range []string{`1`, `-1`, `0`, `01`, `-0`, `1.5e3`, `1E-2`, `1.`, `.5`, `-`, `+1`, `1e`, ` 7 `, `1 2`,
		`"a"`, `""`, `"é"`, `"\u00e9"`, `"\x"`, `"a`, `"a"b`, `"\"`, "\"\x01\"", `true`, `false`, `{}`, `[]`, `[1]`,
		`null`, `nul`, `nulll`, ``, ` `, `NaN`, `Infinity`, `0x10`, `12345678901234567890123`} {
		if got, want := validID([]byte(id)), asJSON([]byte(id)); got != want {
			t.Errorf("validID(%q) = %v, encoding/json says %v", id, got, want)
		}
	}
}

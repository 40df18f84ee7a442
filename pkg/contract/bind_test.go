package contract

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

type bindMeta struct {
	Workspace string `json:"workspace,omitempty"`
}

type bindFilter struct {
	bindMeta
	Kinds []string   `json:"kinds,omitempty"`
	After *time.Time `json:"observed_after,omitempty"`
}

type bindParams struct {
	Query  string      `json:"query"`
	Limit  int         `json:"limit,omitempty"`
	Conf   *float64    `json:"confidence,omitempty"`
	On     bool        `json:"on,omitempty"`
	Filter *bindFilter `json:"filter,omitempty"`
	Rows   []bindRow   `json:"rows,omitempty"`
}

type bindRow struct {
	N int64 `json:"n"`
}

var bindSchema = Object("", []string{"query"}, map[string]*Schema{
	"query":      String(""),
	"limit":      Integer("").Range(1, 100),
	"confidence": Number("").Range(0, 1),
	"on":         Boolean(""),
	"filter": Object("", nil, map[string]*Schema{
		"workspace":      String(""),
		"kinds":          Array("", String("")),
		"observed_after": Timestamp(""),
	}),
	"rows": Array("", Object("", []string{"n"}, map[string]*Schema{"n": Integer("")})),
})

func TestBind(t *testing.T) {
	args, err := DecodeArguments([]byte(`{"query":"q","limit":10.0,"confidence":0.5,"on":true,
		"filter":{"workspace":"w","kinds":["a","b"],"observed_after":"2026-01-31T09:00:00Z"},"rows":[{"n":7}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := bindSchema.Validate(args); err != nil {
		t.Fatal(err)
	}
	var p bindParams
	if err := Bind(args, &p); err != nil {
		t.Fatal(err)
	}
	after := time.Date(2026, 1, 31, 9, 0, 0, 0, time.UTC)
	want := bindParams{Query: "q", Limit: 10, On: true, Rows: []bindRow{{N: 7}},
		Filter: &bindFilter{bindMeta: bindMeta{Workspace: "w"}, Kinds: []string{"a", "b"}, After: &after}}
	if p.Conf == nil || *p.Conf != 0.5 {
		t.Errorf("confidence = %v", p.Conf)
	}
	p.Conf = nil
	if !reflect.DeepEqual(p, want) {
		t.Errorf("bound %+v\nwant  %+v", p, want)
	}

	t.Run("a key with no field is refused, not dropped", func(t *testing.T) {
		var p bindParams
		err := Bind(map[string]any{"query": "q", "extra": "x"}, &p)
		if ErrorCode(err) != CodeInvalidRequest || !strings.Contains(err.Error(), "extra") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("a fraction is not an integer", func(t *testing.T) {
		args, _ := DecodeArguments([]byte(`{"query":"q","limit":1.5}`))
		var p bindParams
		if err := Bind(args, &p); ErrorCode(err) != CodeInvalidRequest || !strings.Contains(err.Error(), "limit") {
			t.Errorf("got %v", err)
		}
	})
}

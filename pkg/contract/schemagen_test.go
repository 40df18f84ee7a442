package contract

import (
	"encoding/json"
	"testing"
)

type genParams struct {
	Name  string         `json:"name" jsonschema:"A name."`
	Limit *int           `json:"limit,omitempty"`
	Tags  []string       `json:"tags,omitempty"`
	Extra map[string]any `json:"extra,omitempty"`
}

func TestInputForGeneratesAClosedSchema(t *testing.T) {
	s := inputFor[genParams](rules{"limit": between(1, 5), "tags": items(maxLen(3))})
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","required":["name"],"additionalProperties":false,"properties":{` +
		`"extra":{"type":"object","properties":{}},` +
		`"limit":{"type":"integer","minimum":1,"maximum":5},` +
		`"name":{"type":"string","description":"A name.","minLength":1},` +
		`"tags":{"type":"array","items":{"type":"string","minLength":1,"maxLength":3}}}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if err := s.Validate(map[string]any{"name": "n", "tags": []any{"abcd"}}); err == nil {
		t.Error("a rule's maxLength on items is not enforced")
	}
}

func TestOutputForLeavesObjectsOpen(t *testing.T) {
	s := outputFor[genParams](nil)
	if s.AdditionalProperties != nil || s.Properties["name"].MinLength != nil {
		t.Errorf("results must promise what they hold and no more: %+v", s)
	}
}

func TestARuleForNoPropertyPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a rule naming a missing property was accepted")
		}
	}()
	inputFor[genParams](rules{"nmae": maxLen(3)})
}

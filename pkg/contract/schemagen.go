package contract

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// rules say what a struct's fields and jsonschema tags cannot: ranges,
// lengths, enums, defaults, the kind of a name. Keys are a property's
// path in the JSON form ("limit", "filter.kinds"); a rule on an array
// applies to the array, and items applies rules to its elements.
type rules map[string]rule

// rule changes one generated property schema.
type rule func(*Schema)

// inputFor is the schema of T as arguments: generated from T's JSON form
// by jsonschema-go (its fields, the descriptions in their jsonschema tags,
// required for each field without omitempty), then completed by rules.
// Objects are closed and strings non-blank, unless a rule says otherwise;
// a rule naming no property of T panics, so a table cannot drift from its
// type.
func inputFor[T any](rs rules) *Schema {
	s := generate(reflect.TypeFor[T](), true)
	s.apply(rs)
	return s
}

// outputFor is the schema of T as a result: the same generation, with
// objects left open (a result promises what it holds, not that nothing
// else will ever appear) and no string rule.
func outputFor[T any](rs rules) *Schema {
	s := generate(reflect.TypeFor[T](), false)
	s.apply(rs)
	return s
}

// opaque are types whose schema is any object: a JSON Schema (a tool's
// parameters), which describes itself.
var opaque = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[Schema](): {Type: "object", AdditionalProperties: &jsonschema.Schema{}},
}

func generate(t reflect.Type, input bool) *Schema {
	js, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: opaque})
	if err != nil {
		panic(fmt.Sprintf("contract: schema of %s: %v", t, err))
	}
	return convert(js, input)
}

// convert maps jsonschema-go's schema onto the subset Validate enforces.
// A Go pointer or slice may be null in JSON; arguments treat null as
// absent anyway, so the type is the one that is not null.
func convert(js *jsonschema.Schema, input bool) *Schema {
	s := &Schema{Type: js.Type, Description: js.Description, Required: js.Required, Format: js.Format}
	if s.Type == "" {
		for _, t := range js.Types {
			if t != "null" {
				s.Type = t
			}
		}
	}
	switch s.Type {
	case "object":
		if js.Properties == nil && js.AdditionalProperties != nil && !isFalse(js.AdditionalProperties) {
			// A map: any keys, which Validate does not look into.
			return &Schema{Type: "object", Description: js.Description}
		}
		s.Properties = map[string]*Schema{}
		for name, p := range js.Properties {
			s.Properties[name] = convert(p, input)
		}
		if input {
			closed := false
			s.AdditionalProperties = &closed
		}
	case "array":
		s.Items = convert(js.Items, input)
	case "string":
		if input {
			one := 1
			s.MinLength = &one
		}
	case "integer":
		// jsonschema-go bounds unsigned fields at 0; results say nothing of it.
		if input {
			s.Minimum, s.Maximum = js.Minimum, js.Maximum
		}
	}
	return s
}

func isFalse(s *jsonschema.Schema) bool {
	return s.Not != nil && reflect.ValueOf(*s.Not).IsZero()
}

func (s *Schema) apply(rs rules) {
	for path, r := range rs {
		p := s.at(path)
		if p == nil {
			panic(fmt.Sprintf("contract: a rule names %q, which the schema has no property for", path))
		}
		r(p)
	}
}

// at finds the property at a dotted path, through arrays' items.
func (s *Schema) at(path string) *Schema {
	for _, name := range strings.Split(path, ".") {
		for s != nil && s.Type == "array" {
			s = s.Items
		}
		if s == nil {
			return nil
		}
		s = s.Properties[name]
	}
	return s
}

// allOf applies rules in turn.
func allOf(rs ...rule) rule {
	return func(s *Schema) {
		for _, r := range rs {
			r(s)
		}
	}
}

// maxLen caps a string's length in characters.
func maxLen(n int) rule { return func(s *Schema) { s.MaxLen(n) } }

// between bounds a number.
func between(min, max float64) rule { return func(s *Schema) { s.Range(min, max) } }

// byDefault records the value applied when the argument is absent.
func byDefault(v any) rule { return func(s *Schema) { s.Def(v) } }

// count bounds the number of items in an array.
func count(min, max int) rule { return func(s *Schema) { s.Count(min, max) } }

// blankOK lets a string be empty.
func blankOK(s *Schema) { s.AllowBlank() }

// oneOf restricts a string to values (and so lets no blank through).
func oneOf(values ...string) rule {
	return func(s *Schema) { s.Enum, s.MinLength = slices.Clone(values), nil }
}

// dateTime makes a string an RFC 3339 timestamp.
func dateTime(s *Schema) { s.Format, s.MinLength = "date-time", nil }

// workspaceName makes a string a workspace name (see Workspace): the
// description states the rule, which Validate applies.
func workspaceName(s *Schema) { *s = *Workspace(s.Description) }

// items applies rules to an array's elements.
func items(rs ...rule) rule { return func(s *Schema) { allOf(rs...)(s.Items) } }

// described sets a description where a tag cannot: on a type used in
// several places with different words.
func described(desc string) rule { return func(s *Schema) { s.Description = desc } }

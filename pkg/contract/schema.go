package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Schema is the subset of JSON Schema our tools use. The same value is
// published in tools/list and the registry and enforced by Validate, so what a
// client reads is exactly what the server checks.
type Schema struct {
	Type                 string             `json:"type,omitempty"`
	Description          string             `json:"description,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	AdditionalProperties *bool              `json:"additionalProperties,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	Enum                 []string           `json:"enum,omitempty"`
	Format               string             `json:"format,omitempty"`
	Minimum              *float64           `json:"minimum,omitempty"`
	Maximum              *float64           `json:"maximum,omitempty"`
	MinLength            *int               `json:"minLength,omitempty"`
	MaxLength            *int               `json:"maxLength,omitempty"`
	MinItems             *int               `json:"minItems,omitempty"`
	MaxItems             *int               `json:"maxItems,omitempty"`
	Default              any                `json:"default,omitempty"`

	// kind is a kind of name a string must be, a rule JSON Schema cannot
	// state (the description does).
	kind nameKind
}

// MarshalJSON always writes "properties" for objects, even when empty: some
// clients (OpenAI-compatible tool APIs among them) reject an object schema
// without it.
func (s *Schema) MarshalJSON() ([]byte, error) {
	type plain Schema
	if s.Type != "object" {
		return json.Marshal((*plain)(s))
	}
	props := s.Properties
	if props == nil {
		props = map[string]*Schema{}
	}
	return json.Marshal(struct {
		*plain
		Properties map[string]*Schema `json:"properties"`
	}{(*plain)(s), props})
}

// Object is a closed object schema: unknown keys are rejected.
func Object(desc string, required []string, props map[string]*Schema) *Schema {
	closed := false
	if props == nil {
		props = map[string]*Schema{}
	}
	return &Schema{Type: "object", Description: desc, Properties: props, Required: required, AdditionalProperties: &closed}
}

// String is a string schema. Strings are non-blank unless AllowBlank is called.
func String(desc string) *Schema {
	one := 1
	return &Schema{Type: "string", Description: desc, MinLength: &one}
}

// Integer is an integer schema.
func Integer(desc string) *Schema { return &Schema{Type: "integer", Description: desc} }

// Number is a floating point schema.
func Number(desc string) *Schema { return &Schema{Type: "number", Description: desc} }

// Boolean is a true/false schema.
func Boolean(desc string) *Schema { return &Schema{Type: "boolean", Description: desc} }

// Enum is a string schema restricted to values.
func Enum(desc string, values ...string) *Schema {
	return &Schema{Type: "string", Description: desc, Enum: values}
}

// Array is an array schema of items.
func Array(desc string, items *Schema) *Schema {
	return &Schema{Type: "array", Description: desc, Items: items}
}

// Timestamp is an RFC 3339 date-time string.
func Timestamp(desc string) *Schema {
	return &Schema{Type: "string", Description: desc, Format: "date-time"}
}

// Range bounds a number or integer.
func (s *Schema) Range(min, max float64) *Schema { s.Minimum, s.Maximum = &min, &max; return s }

// MaxLen caps a string's length in characters.
func (s *Schema) MaxLen(n int) *Schema { s.MaxLength = &n; return s }

// AllowBlank lets a string be empty.
func (s *Schema) AllowBlank() *Schema { s.MinLength = nil; return s }

// Count bounds the number of items in an array.
func (s *Schema) Count(min, max int) *Schema { s.MinItems, s.MaxItems = &min, &max; return s }

// Def records the default applied when the argument is absent.
func (s *Schema) Def(v any) *Schema { s.Default = v; return s }

// DecodeArguments turns raw tool arguments into an object. Absent or null
// arguments are the empty object, and a JSON string holding an object is
// accepted as that object because some clients double-encode.
func DecodeArguments(raw json.RawMessage) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, invalid("", "tool arguments are not valid JSON: %v", err)
	}
	return Arguments(v)
}

// Arguments is DecodeArguments for arguments already decoded (with
// UseNumber) as part of a larger message, so they are not decoded twice.
func Arguments(v any) (map[string]any, error) {
	switch a := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return a, nil
	case string:
		trimmed := strings.TrimSpace(a)
		if trimmed == "" {
			return map[string]any{}, nil
		}
		if strings.HasPrefix(trimmed, "{") {
			return DecodeArguments(json.RawMessage(trimmed))
		}
	}
	return nil, invalid("", "tool arguments must be a JSON object, not %s", describe(v))
}

// Validate checks args against s (an object schema), removes nulls given for
// optional arguments, and returns the first problem as an INVALID_REQUEST error
// that names the field.
func (s *Schema) Validate(args map[string]any) error {
	return s.validateObject("", args)
}

func (s *Schema) validateObject(path string, obj map[string]any) error {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := s.Properties[k]; !ok && s.AdditionalProperties != nil && !*s.AdditionalProperties {
			return unexpected(path, k, s)
		}
	}
	for _, name := range s.Required {
		v, ok := obj[name]
		if !ok || v == nil {
			if path == "" {
				return invalid(name, "missing required argument `%s`", name)
			}
			return invalid(join(path, name), "missing required field `%s`", join(path, name))
		}
	}
	for _, k := range keys {
		prop, ok := s.Properties[k]
		if !ok {
			continue
		}
		if obj[k] == nil {
			delete(obj, k) // an explicit null means "not given"
			continue
		}
		if err := prop.validateValue(join(path, k), obj[k]); err != nil {
			return err
		}
	}
	return nil
}

func (s *Schema) validateValue(path string, v any) error {
	switch s.Type {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return wrongType(path, "an object", v)
		}
		return s.validateObject(path, obj)
	case "string":
		str, ok := v.(string)
		if !ok {
			return wrongType(path, "a string", v)
		}
		return s.validateString(path, str)
	case "integer", "number":
		n, ok := v.(json.Number)
		if !ok {
			return wrongType(path, map[string]string{"integer": "an integer", "number": "a number"}[s.Type], v)
		}
		return s.validateNumber(path, n)
	case "boolean":
		if _, ok := v.(bool); !ok {
			return wrongType(path, "true or false", v)
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			return wrongType(path, "an array", v)
		}
		if (s.MinItems != nil && len(arr) < *s.MinItems) || (s.MaxItems != nil && len(arr) > *s.MaxItems) {
			return invalid(path, "argument `%s` must hold %s items, got %d", path, bounds(s.MinItems, s.MaxItems), len(arr))
		}
		for i, item := range arr {
			if err := s.Items.validateValue(fmt.Sprintf("%s[%d]", path, i), item); err != nil {
				return err
			}
		}
	}
	return nil
}

// IsBlank reports whether s shows nothing: it holds only white space and
// zero-width characters (U+200B, U+200C, U+200D, U+2060, U+FEFF).
func IsBlank(s string) bool { return TrimBlank(s) == "" }

// TrimBlank removes white space and zero-width characters from both ends of s.
func TrimBlank(s string) string { return strings.TrimFunc(s, blankRune) }

func blankRune(r rune) bool {
	switch r {
	case '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff':
		return true
	}
	return unicode.IsSpace(r)
}

func (s *Schema) validateString(path, str string) error {
	if s.kind == kindWorkspace {
		if p := workspaceProblem(str); p != "" {
			return invalid(path, "argument `%s`: %s; %s", path, p, workspaceRule)
		}
	}
	if s.MinLength != nil && *s.MinLength > 0 && IsBlank(str) {
		return invalid(path, "argument `%s` must not be blank", path)
	}
	if s.MaxLength != nil {
		if n := utf8.RuneCountInString(str); n > *s.MaxLength {
			return invalid(path, "argument `%s` is too long: %d characters, the limit is %d", path, n, *s.MaxLength)
		}
	}
	if len(s.Enum) > 0 {
		for _, e := range s.Enum {
			if str == e {
				return nil
			}
		}
		return invalid(path, "argument `%s` must be one of %s; got %q", path, strings.Join(s.Enum, ", "), clip(str))
	}
	if s.Format == "date-time" {
		if _, err := time.Parse(time.RFC3339Nano, str); err != nil {
			return invalid(path, "argument `%s` must be an RFC 3339 timestamp such as 2026-01-31T09:00:00Z; got %q", path, clip(str))
		}
	}
	return nil
}

func (s *Schema) validateNumber(path string, n json.Number) error {
	f, err := strconv.ParseFloat(n.String(), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return invalid(path, "argument `%s` is out of range: %s must be %s", path, clip(n.String()), numBounds(s))
	}
	if s.Type == "integer" && f != math.Trunc(f) {
		return invalid(path, "argument `%s` must be a whole number, got %s", path, clip(n.String()))
	}
	if (s.Minimum != nil && f < *s.Minimum) || (s.Maximum != nil && f > *s.Maximum) {
		return invalid(path, "argument `%s` is out of range: %s must be %s", path, clip(n.String()), numBounds(s))
	}
	return nil
}

func numBounds(s *Schema) string {
	f := func(p *float64) string { return strconv.FormatFloat(*p, 'g', -1, 64) }
	switch {
	case s.Minimum != nil && s.Maximum != nil:
		return "between " + f(s.Minimum) + " and " + f(s.Maximum)
	case s.Minimum != nil:
		return "at least " + f(s.Minimum)
	case s.Maximum != nil:
		return "at most " + f(s.Maximum)
	}
	return "a finite number"
}

func bounds(min, max *int) string {
	switch {
	case min != nil && max != nil:
		return fmt.Sprintf("%d to %d", *min, *max)
	case min != nil:
		return fmt.Sprintf("at least %d", *min)
	case max != nil:
		return fmt.Sprintf("at most %d", *max)
	}
	return "any number of"
}

func unexpected(path, key string, s *Schema) error {
	allowed := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		allowed = append(allowed, k)
	}
	sort.Strings(allowed)
	hint := "it takes no arguments"
	if len(allowed) > 0 {
		hint = "allowed: " + strings.Join(allowed, ", ")
	}
	key = clip(key) // the name is user input: a 2 MiB key must not come back whole
	if path == "" {
		return invalid(key, "unexpected argument `%s` (%s)", key, hint)
	}
	return invalid(join(path, key), "unexpected %s field `%s` (%s)", path, key, hint)
}

func wrongType(path, want string, v any) error {
	return invalid(path, "argument `%s` must be %s, not %s", path, want, describe(v))
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func invalid(field, format string, args ...any) *Error {
	e := Errorf(CodeInvalidRequest, format, args...)
	if field != "" {
		e.Data = map[string]any{"field": field}
	}
	return e
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// clip keeps echoed user input short: a 2 MiB string must not come back whole.
func clip(s string) string {
	if len(s) <= 80 {
		return s
	}
	cut := 80
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

package contract

import (
	"slices"
	"unicode/utf8"
)

// SummaryField says what an audit row keeps of one argument: its length,
// its count, or (for enums and ids, never free text) its value. A tool
// lists them in its catalog entry, so what is audited is decided where the
// tool is defined.
type SummaryField struct {
	Arg  string
	As   string
	keep func(v any, present bool, s *Schema) any
}

// LengthOf keeps the length in characters of a text argument, as
// <arg>_length.
func LengthOf(arg string) SummaryField {
	return SummaryField{Arg: arg, As: arg + "_length", keep: func(v any, _ bool, _ *Schema) any {
		s, _ := v.(string)
		return utf8.RuneCountInString(s)
	}}
}

// CountOf keeps how many items an array argument holds, as as.
func CountOf(arg, as string) SummaryField {
	return SummaryField{Arg: arg, As: as, keep: func(v any, _ bool, _ *Schema) any {
		a, _ := v.([]any)
		return len(a)
	}}
}

// ValueOf keeps an argument's value, or the schema's default when it is
// absent. Only for values that name something (an enum, an id, a yes or
// no), never for content.
func ValueOf(arg string) SummaryField {
	return SummaryField{Arg: arg, As: arg, keep: func(v any, present bool, s *Schema) any {
		if b, ok := v.(bool); ok {
			return b
		}
		if !present && s != nil && s.Type == "boolean" && s.Default == nil {
			return false // a flag left out is off
		}
		str, _ := v.(string)
		if (!present || str == "") && s != nil && s.Default != nil {
			return s.Default
		}
		if s != nil && len(s.Enum) > 0 && !slices.Contains(s.Enum, str) {
			// A refused call's value outside the enum is whatever the
			// caller typed: content, which the audit never keeps.
			return "(not one of its values)"
		}
		return str
	}}
}

// Summarize describes a call's arguments for the audit without their
// content: the tool's Summary fields, or for a tool without any, only the
// names of the arguments given.
func (t Tool) Summarize(args map[string]any) map[string]any {
	if len(t.Summary) == 0 {
		keys := make([]string, 0, len(args))
		for k := range args {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return map[string]any{"arguments": keys}
	}
	out := make(map[string]any, len(t.Summary))
	for _, f := range t.Summary {
		v, present := args[f.Arg]
		var prop *Schema
		if t.Input != nil {
			prop = t.Input.Properties[f.Arg]
		}
		out[f.As] = f.keep(v, present, prop)
	}
	return out
}

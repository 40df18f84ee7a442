package config

import (
	"regexp"
	"strings"
)

// wrongType reads BurntSushi/toml's error for a value of the wrong type
// ("toml: line 2 (last key "server.port"): incompatible types: TOML value
// has type string; destination has type int"), which the library gives as
// text only; TestLoad holds its wording, so a library that changes it
// fails there rather than here.
var wrongType = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]+)"\): incompatible types: TOML value has type (\S+); destination has type (\S+)$`)

// tomlKinds names Go types as TOML writes their values.
var tomlKinds = []struct{ prefix, kind, how string }{
	{"string", "a string", `in double quotes, such as "info"`},
	{"int", "a whole number", "without quotes, such as 30"},
	{"uint", "a whole number", "without quotes, such as 30"},
	{"float", "a number", "without quotes, such as 0.5"},
	{"bool", "true or false", "without quotes: true or false"},
	{"[]", "a list", `in brackets, such as ["a", "b"]`},
	{"map", "a table", "as a [table] of keys"},
	{"time.", "a date", "such as 2026-01-02T15:04:05Z"},
}

func tomlKind(goType string) (kind, how string) {
	for _, k := range tomlKinds {
		if strings.HasPrefix(goType, k.prefix) {
			return k.kind, k.how
		}
	}
	return goType, ""
}

// typeError is a wrong type's error in the file's terms: the line, the
// key, what it holds and how to write what it needs. ok is false for any
// other error.
func typeError(err error) (msg string, ok bool) {
	m := wrongType.FindStringSubmatch(err.Error())
	if m == nil {
		return "", false
	}
	has, _ := tomlKind(m[3])
	want, how := tomlKind(m[4])
	if how != "" {
		how = ": write it " + how
	}
	return "line " + m[1] + ": " + m[2] + " is " + has + " but must be " + want + how, true
}

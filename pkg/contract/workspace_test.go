package contract

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestWorkspaceNames: every schema a workspace enters by (a read's filter,
// a learning, a file or a conversation turn to ingest) takes printable
// names of at most 128 characters without a path separator, and refuses
// others naming the field.
func TestWorkspaceNames(t *testing.T) {
	good := []string{"work", "Team A", "émigré-2026", "a.b", "x_y", "日本語", strings.Repeat("w", 128)}
	bad := map[string]string{
		"a\x00b":                  `holds a character that does not print (U+0000)`,
		"../../x":                 `holds a path separator`,
		"a/b":                     `holds a path separator`,
		`a\b`:                     `holds a path separator`,
		"..":                      `names a directory`,
		".":                       `names a directory`,
		strings.Repeat("w", 129):  `is 129 characters long`,
		strings.Repeat("w", 1024): `is 1024 characters long`,
		"tab\there":               `does not print (U+0009)`,
		"\x1b[31mred":             `does not print (U+001B)`,
		"evil\u202etxt.exe":       `does not print (U+202E)`,
		"  ":                      `blank`,
		"line\nbreak":             `does not print (U+000A)`,
		"zero\u200bwidth":         `does not print (U+200B)`,
		"nbsp\u00a0inside":        `does not print (U+00A0)`,
	}
	uses := []struct{ tool, args, field string }{
		{"memory.fetch", `{"query":"q","filter":{"workspace":%s}}`, "filter.workspace"},
		{"memory.list", `{"filter":{"workspace":%s}}`, "filter.workspace"},
		{"memory.learn", `{"text":"t","workspace":%s}`, "workspace"},
	}
	check := func(t *testing.T, schema *Schema, raw, field, name, want string) {
		t.Helper()
		args, err := DecodeArguments(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		err = schema.Validate(args)
		if want == "" {
			if err != nil {
				t.Errorf("%q refused: %v", name, err)
			}
			return
		}
		if err == nil {
			t.Errorf("%q accepted as a workspace name", clip(name))
			return
		}
		e := AsError(err)
		if ErrorCode(err) != CodeInvalidRequest || e.Data["field"] != field || !strings.Contains(e.Message, want) ||
			!strings.Contains(e.Message, "argument `"+field+"`") || !strings.Contains(e.Message, "128 printable characters") {
			t.Errorf("%q: got %v, want INVALID_REQUEST naming %s and saying %q", clip(name), err, field, want)
		}
		if len(e.Message) > 400 {
			t.Errorf("the message echoes the whole name: %d bytes", len(e.Message))
		}
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	for _, u := range uses {
		tl, _ := ToolByName(u.tool)
		for _, name := range good {
			check(t, tl.Input, strings.Replace(u.args, "%s", q(name), 1), u.field, name, "")
		}
		for name, want := range bad {
			check(t, tl.Input, strings.Replace(u.args, "%s", q(name), 1), u.field, name, want)
		}
	}
	file := `{"files":[{"source_id":"/a","source_kind":"file","display_name":"a","content":"x","workspace":%s}]}`
	turn := `{"turns":[{"thread_id":"t","text":"x","workspace":%s}]}`
	for name, want := range bad {
		check(t, IngestInput(), strings.Replace(file, "%s", q(name), 1), "files[0].workspace", name, want)
		check(t, ConversationInput(), strings.Replace(turn, "%s", q(name), 1), "turns[0].workspace", name, want)
	}
	for _, name := range good {
		check(t, IngestInput(), strings.Replace(file, "%s", q(name), 1), "files[0].workspace", name, "")
		if err := CheckWorkspace(name); err != nil {
			t.Errorf("CheckWorkspace(%q): %v", name, err)
		}
	}
	if err := CheckWorkspace(string([]byte{'w', 0xff})); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("CheckWorkspace of bytes that are not UTF-8: %v", err)
	}
	if err := CheckWorkspace("../../x"); err == nil || !strings.Contains(err.Error(), `workspace "../../x" holds a path separator; a workspace name is 1 to 128`) {
		t.Errorf("CheckWorkspace: %v", err)
	}
}

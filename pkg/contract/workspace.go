package contract

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxWorkspaceChars is the longest workspace name.
const MaxWorkspaceChars = 128

// workspaceRule is what a workspace name is, said the same way wherever
// one is refused.
const workspaceRule = "a workspace name is 1 to 128 printable characters without / or \\, such as \"work\""

// Workspace is the schema of a workspace name (see CheckWorkspace). JSON
// Schema has no portable way to say "printable", so the description says
// the rule and Validate applies it.
func Workspace(desc string) *Schema {
	s := String(strings.TrimSpace(desc + " " + strings.ToUpper(workspaceRule[:1]) + workspaceRule[1:] + "."))
	s.MaxLen(MaxWorkspaceChars)
	s.kind = kindWorkspace
	return s
}

// CheckWorkspace says what is wrong with name as a workspace name, or nil.
// A name reaches tokens, filters, audit rows and logs: one that does not
// print (NUL, a terminal escape, a direction override), or that reads as a
// path (../../x), would mislead whoever reads those; one of 1,024
// characters only costs.
func CheckWorkspace(name string) error {
	if p := workspaceProblem(name); p != "" {
		return fmt.Errorf("%s; %s", p, workspaceRule)
	}
	return nil
}

func workspaceProblem(name string) string {
	switch {
	case IsBlank(name):
		return "the workspace name is blank"
	case utf8.RuneCountInString(name) > MaxWorkspaceChars:
		return fmt.Sprintf("the workspace name is %d characters long", utf8.RuneCountInString(name))
	case !utf8.ValidString(name):
		return fmt.Sprintf("workspace %q is not valid UTF-8", clip(name))
	case strings.ContainsAny(name, `/\`):
		return fmt.Sprintf("workspace %q holds a path separator", clip(name))
	case name == "." || name == "..":
		return fmt.Sprintf("workspace %q names a directory", name)
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return fmt.Sprintf("workspace %q holds a character that does not print (%U)", clip(name), r)
		}
	}
	return ""
}

// nameKind marks a string schema whose values must be a kind of name.
type nameKind uint8

const (
	kindAny nameKind = iota
	kindWorkspace
)

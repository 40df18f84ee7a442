package ingest

import "testing"

func TestIgnoreRules(t *testing.T) {
	set := &ignoreSet{}
	for _, l := range []string{"# comment", "*.log", "!keep.log", "build/", "/secret.txt", "docs/**/draft-*.md", "**/tmp", "a?c", "[Tt]humbs.db", `\#hash`} {
		if r, ok := parseIgnore(l); ok {
			set.rules = append(set.rules, r)
		}
	}
	sets := []*ignoreSet{set}
	for _, tc := range []struct {
		path string
		dir  bool
		want bool
	}{
		{"app.log", false, true},
		{"sub/deep/app.log", false, true},
		{"keep.log", false, false},
		{"build", true, true},
		{"sub/build", true, true},
		{"build", false, false}, // a file named build is not the folder
		{"secret.txt", false, true},
		{"sub/secret.txt", false, false}, // anchored to the root
		{"docs/a/b/draft-1.md", false, true},
		{"docs/draft-2.md", false, true},
		{"docs/final.md", false, false},
		{"x/y/tmp", true, true},
		{"abc", false, true},
		{"abbc", false, false},
		{"Thumbs.db", false, true},
		{"#hash", false, true},
		{"main.go", false, false},
	} {
		if got := ignored(sets, tc.path, tc.dir); got != tc.want {
			t.Errorf("%s (dir %v): ignored=%v, want %v", tc.path, tc.dir, got, tc.want)
		}
	}
	// A nested .gitignore applies below its folder only, after the root's.
	nested := &ignoreSet{base: "pkg"}
	r, _ := parseIgnore("!important.log")
	nested.rules = append(nested.rules, r)
	if ignored([]*ignoreSet{set, nested}, "pkg/important.log", false) {
		t.Error("a nested negation must win below its folder")
	}
	if !ignored([]*ignoreSet{set, nested}, "other/important.log", false) {
		t.Error("a nested rule leaked out of its folder")
	}
}

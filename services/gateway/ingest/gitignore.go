package ingest

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ignoreRule is one .gitignore line.
type ignoreRule struct {
	re      *regexp.Regexp
	negate  bool
	dirOnly bool
}

// ignoreSet holds the rules of one .gitignore file, relative to its folder.
type ignoreSet struct {
	base  string // folder of the .gitignore, relative to the walk root, "" for the root
	rules []ignoreRule
}

// readIgnore parses dir/.gitignore; a missing file is an empty set.
func readIgnore(root, rel string) *ignoreSet {
	f, err := os.Open(filepath.Join(root, rel, ".gitignore"))
	if err != nil {
		return nil
	}
	defer f.Close()
	set := &ignoreSet{base: filepath.ToSlash(rel)}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if r, ok := parseIgnore(sc.Text()); ok {
			set.rules = append(set.rules, r)
		}
	}
	return set
}

// parseIgnore turns a .gitignore pattern into a rule, following git's rules:
// "#" comments, "!" negation, a trailing "/" for folders only, a pattern
// with an inner "/" anchored to the .gitignore's folder, "**" for any
// number of folders.
func parseIgnore(line string) (ignoreRule, bool) {
	line = strings.TrimRight(line, " \t")
	if line == "" || strings.HasPrefix(line, "#") {
		return ignoreRule{}, false
	}
	var r ignoreRule
	if strings.HasPrefix(line, "!") {
		r.negate, line = true, line[1:]
	}
	line = strings.TrimPrefix(line, `\`) // \# and \! escape the first character
	if strings.HasSuffix(line, "/") {
		r.dirOnly, line = true, strings.TrimSuffix(line, "/")
	}
	anchored := strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	var b strings.Builder
	if anchored {
		b.WriteString("^")
	} else {
		b.WriteString("(^|/)")
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case strings.HasPrefix(line[i:], "**/"):
			b.WriteString("(.*/)?")
			i += 2
		case strings.HasPrefix(line[i:], "/**") && i+3 == len(line):
			b.WriteString("/.*")
			i += 2
		case strings.HasPrefix(line[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := strings.IndexByte(line[i:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := line[i+1 : i+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + class + "]")
			i += j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return ignoreRule{}, false
	}
	r.re = re
	return r, true
}

// ignored reports whether rel (slash-separated, relative to the walk root)
// is ignored by the sets in force, the deepest deciding last.
func ignored(sets []*ignoreSet, rel string, isDir bool) bool {
	out := false
	for _, set := range sets {
		p := rel
		if set.base != "" && set.base != "." {
			if !strings.HasPrefix(rel, set.base+"/") {
				continue
			}
			p = strings.TrimPrefix(rel, set.base+"/")
		}
		for _, r := range set.rules {
			if r.dirOnly && !isDir {
				continue
			}
			if r.re.MatchString(p) {
				out = !r.negate
			}
		}
	}
	return out
}

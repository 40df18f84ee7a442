// Command memsize measures how much hand-written language knowledge the
// memory service carries: the lines of its non-test Go outside storage,
// replication, model adapters and generated tables, and the distinct
// English words written into it as string literals or word-list files.
// Ranking that leans on such words rather than on features and models
// breaks on the first memory that does not look like its examples, so
// the figure is watched, not just the tests.
//
// Usage: go run ./tools/eval/cmd/memsize [-words] [services/memory]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// outside lists the directories that are not ranking or answering:
// storage, replication, the bus, model adapters, wiring and the
// generated tables they read.
var outside = map[string]bool{
	"sqlite": true, "jetstream": true, "natsbus": true, "hfhub": true,
	"minilm": true, "bert": true, "ollama": true, "openai": true,
	"localembed": true, "glove": true, "wordnet": true, "memorymain": true,
	"cmd": true, "gen": true, "testdata": true,
}

func main() {
	list := flag.Bool("words", false, "print each word with the files that hold it")
	flag.Parse()
	root := "services/memory"
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	lines, words, err := measure(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "memsize:", err)
		os.Exit(1)
	}
	if *list {
		keys := make([]string, 0, len(words))
		for w := range words {
			keys = append(keys, w)
		}
		sort.Strings(keys)
		for _, w := range keys {
			fmt.Printf("%s\t%s\n", w, strings.Join(words[w], " "))
		}
	}
	fmt.Printf("lines %d\nwords %d\n", lines, len(words))
}

func measure(root string) (int, map[string][]string, error) {
	lines := 0
	words := map[string][]string{}
	add := func(w, file string) {
		w = strings.ToLower(strings.Trim(w, "'-"))
		if len(w) < 2 || !isWord(w) {
			return
		}
		fs := words[w]
		if len(fs) == 0 || fs[len(fs)-1] != file {
			words[w] = append(fs, file)
		}
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && outside[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case strings.HasSuffix(path, "_test.go"):
		case strings.HasSuffix(path, ".go"):
			n, err := goFile(path, rel, add)
			if err != nil {
				return err
			}
			lines += n
		case strings.HasSuffix(path, ".txt"):
			return listFile(path, rel, add)
		}
		return nil
	})
	return lines, words, err
}

// goFile counts a file's lines and feeds the words of each string
// literal made only of letters, white space, hyphens and apostrophes:
// word lists and phrases, not messages with verbs like %q or punctuation.
func goFile(path, rel string, add func(w, file string)) (int, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.SkipObjectResolution)
	if err != nil {
		return 0, err
	}
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil || !phrase(s) {
			return true
		}
		for _, w := range strings.Fields(s) {
			add(w, rel)
		}
		return true
	})
	return strings.Count(string(src), "\n"), nil
}

func listFile(path, rel string, add func(w, file string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, w := range strings.FieldsFunc(line, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '-' }) {
			add(w, rel)
		}
	}
	return sc.Err()
}

func phrase(s string) bool {
	if strings.TrimSpace(s) == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsSpace(r) && r != '-' && r != '\'' {
			return false
		}
	}
	return true
}

func isWord(w string) bool {
	vowel := false
	for _, r := range w {
		if r > unicode.MaxASCII || (!unicode.IsLower(r) && r != '\'' && r != '-') {
			return false
		}
		if strings.ContainsRune("aeiouy", r) {
			vowel = true
		}
	}
	return vowel
}

// Command wordnet extracts the retrieval evaluation's distractor sentences
// from WordNet's data files (Debian's wordnet-base): glosses and example
// sentences, written by lexicographers nobody here knows, about everything
// but the evaluation's facts. The choice is deterministic (the sentences
// whose FNV-1a hash is lowest), so running it again writes the same file.
//
//	go run ./testdata/eval/wordnet > testdata/eval/distractors.txt
package main

import (
	"bufio"
	"flag"
	"fmt"
	"hash/fnv"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

func main() {
	dir := flag.String("dir", "/usr/share/wordnet", "folder of WordNet's data.{noun,verb,adj,adv}")
	n := flag.Int("n", 6000, "how many sentences to write")
	flag.Parse()
	seen := map[string]bool{}
	var all []string
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		f, err := os.Open(filepath.Join(*dir, "data."+pos))
		if err != nil {
			slog.Error("WordNet's data files are missing; apt-get install wordnet-base", "err", err)
			os.Exit(1)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "  ") { // the licence header
				continue
			}
			_, gloss, ok := strings.Cut(line, " | ")
			if !ok {
				continue
			}
			for _, s := range sentences(gloss) {
				if !seen[s] {
					seen[s] = true
					all = append(all, s)
				}
			}
		}
		f.Close()
	}
	key := func(s string) uint64 { h := fnv.New64a(); h.Write([]byte(s)); return h.Sum64() }
	sort.Slice(all, func(i, j int) bool { return key(all[i]) < key(all[j]) })
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for _, s := range all[:min(*n, len(all))] {
		fmt.Fprintln(w, s)
	}
}

// sentences splits a gloss into its definition and its quoted examples,
// each made a sentence; fragments too short to be one are left out.
func sentences(gloss string) []string {
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), `"`))
		if len(s) < 25 || len(s) > 220 || strings.ContainsAny(s, `"|`) {
			return
		}
		r := []rune(s)
		r[0] = unicode.ToUpper(r[0])
		s = string(r)
		if !strings.ContainsAny(s[len(s)-1:], ".!?") {
			s += "."
		}
		out = append(out, s)
	}
	def, rest, _ := strings.Cut(gloss, `; "`)
	if !strings.HasPrefix(strings.TrimSpace(gloss), `"`) {
		add(def)
	} else {
		rest = gloss
	}
	for _, part := range strings.Split(rest, `"`) {
		part = strings.TrimSpace(part)
		if part == "" || part == ";" || strings.HasPrefix(part, ";") || strings.HasPrefix(part, "-") {
			continue
		}
		add(part)
	}
	return out
}

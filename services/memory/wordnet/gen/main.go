// Command gen builds the wordnet package's table from a WordNet 3.0
// database (Debian's wordnet-base installs one in /usr/share/wordnet): for
// every single-word lemma how often the sense-tagged corpus has it
// (cntlist), its frequent senses, the hypernyms of those senses, its
// derivationally related words, and the irregular word forms of the .exc
// files. Run it with go generate in the parent folder; the same
// database always gives the same bytes.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Senses kept per lemma: at most maxSenses, each weighing at least
// minShare of the lemma's heaviest. A sense's weight is its count in the
// sense-tagged corpus (cntlist) plus a prior that falls with its rank in
// the index, so an untagged word keeps its first sense.
const (
	maxSenses = 4
	minShare  = 0.2
)

var posFiles = []struct{ name, tag string }{{"noun", "n"}, {"verb", "v"}, {"adj", "a"}, {"adv", "r"}}

type sense struct {
	synset string // pos tag + offset: "n06825399"
	weight float64
}

type synset struct {
	lemmas    []string            // in order, lowercased
	hypernyms []string            // synset keys
	derived   map[string][]string // lemma → related lemmas (in other synsets)
}

func main() {
	dict := flag.String("dict", "/usr/share/wordnet", "WordNet 3.0 database folder")
	out := flag.String("o", "table.gz", "table to write")
	flag.Parse()
	if err := run(*dict, *out); err != nil {
		log.Fatal(err)
	}
}

func run(dict, out string) error {
	counts, err := readCounts(filepath.Join(dict, "cntlist.rev"))
	if err != nil {
		return err
	}
	tagged := map[string]int{} // lemma → times tagged in the corpus, all senses: how common it is
	for k, c := range counts {
		tagged[k.lemma] += int(c)
	}
	synsets := map[string]*synset{}
	senses := map[string][]sense{}
	for _, pf := range posFiles {
		if err := readData(filepath.Join(dict, "data."+pf.name), pf.tag, synsets); err != nil {
			return err
		}
		if err := readIndex(filepath.Join(dict, "index."+pf.name), pf.tag, counts, senses); err != nil {
			return err
		}
	}
	lemmas := make([]string, 0, len(senses))
	for l, ss := range senses {
		keep := pickSenses(ss)
		if len(keep) == 0 {
			delete(senses, l)
			continue
		}
		senses[l] = keep
		lemmas = append(lemmas, l)
	}
	sort.Strings(lemmas)

	ids, order, kept := numberSynsets(lemmas, senses, synsets)
	var b bytes.Buffer
	total := 0
	for _, c := range tagged {
		total += c
	}
	fmt.Fprintf(&b, "wordnet-table 2\n%d tagged\n%d synsets\n", total, len(order))
	for i, key := range order {
		var hs []string
		if i < kept {
			for _, h := range synsets[key].hypernyms {
				hs = append(hs, strconv.Itoa(ids[h]))
			}
		}
		fmt.Fprintln(&b, strings.Join(hs, " "))
	}
	writeWords(&b, lemmas, senses, synsets, tagged, ids)
	exc, err := readExceptions(dict, senses)
	if err != nil {
		return err
	}
	fmt.Fprintf(&b, "%d forms\n", len(exc))
	for _, e := range exc {
		fmt.Fprintln(&b, e)
	}

	z, err := gzipped(b.Bytes())
	if err != nil {
		return err
	}
	log.Printf("%d lemmas, %d synsets, %d forms: %d bytes, %d gzipped", len(lemmas), len(order), len(exc), b.Len(), len(z))
	return os.WriteFile(out, z, 0o644)
}

// numberSynsets gives synsets dense ids: first the kept senses, then their
// hypernyms, in lemma order, so the numbering follows the data alone. It
// returns the ids, the synsets in id order, and how many of them are kept
// senses.
func numberSynsets(lemmas []string, senses map[string][]sense, synsets map[string]*synset) (map[string]int, []string, int) {
	ids := map[string]int{}
	var order []string
	id := func(key string) int {
		if i, ok := ids[key]; ok {
			return i
		}
		ids[key] = len(order)
		order = append(order, key)
		return len(order) - 1
	}
	for _, l := range lemmas {
		for _, s := range senses[l] {
			id(s.synset)
		}
	}
	kept := len(order)
	for i := 0; i < kept; i++ {
		for _, h := range synsets[order[i]].hypernyms {
			id(h)
		}
	}
	return ids, order, kept
}

// writeWords writes a line for each lemma: its tagged count, its senses by
// synset id and weight, and its derivationally related lemmas.
func writeWords(b *bytes.Buffer, lemmas []string, senses map[string][]sense, synsets map[string]*synset, tagged map[string]int, ids map[string]int) {
	fmt.Fprintf(b, "%d words\n", len(lemmas))
	for _, l := range lemmas {
		var ss []string
		derived := map[string]bool{}
		for _, s := range senses[l] {
			ss = append(ss, fmt.Sprintf("%d:%.3g", ids[s.synset], s.weight))
			for _, ref := range synsets[s.synset].derived[l] {
				if d := lemmaAt(synsets, ref); senses[d] != nil && d != l {
					derived[d] = true
				}
			}
		}
		var ds []string
		for d := range derived {
			ds = append(ds, d)
		}
		sort.Strings(ds)
		fmt.Fprintf(b, "%s\t%d\t%s\t%s\n", l, tagged[l], strings.Join(ss, " "), strings.Join(ds, " "))
	}
}

// gzipped is data compressed as well as gzip can.
func gzipped(data []byte) ([]byte, error) {
	var z bytes.Buffer
	zw, err := gzip.NewWriterLevel(&z, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return z.Bytes(), nil
}

// lemmaAt resolves a "synset#word number" reference to its lemma.
func lemmaAt(synsets map[string]*synset, ref string) string {
	key, n, _ := strings.Cut(ref, "#")
	i, _ := strconv.Atoi(n)
	if s := synsets[key]; s != nil && i >= 1 && i <= len(s.lemmas) {
		return s.lemmas[i-1]
	}
	return ""
}

// pickSenses keeps a lemma's frequent senses, heaviest first, with
// weights summing to 1.
func pickSenses(ss []sense) []sense {
	ss = append([]sense(nil), ss...)
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].weight > ss[j].weight })
	var keep []sense
	var total float64
	for _, s := range ss {
		if len(keep) == maxSenses || s.weight < minShare*ss[0].weight {
			break
		}
		keep = append(keep, s)
		total += s.weight
	}
	for i := range keep {
		keep[i].weight /= total
	}
	return keep
}

// usable says whether a lemma is one plain lowercase word: multiword
// lemmas cannot be matched word by word, and capitalized ones are names.
func usable(l string) bool {
	if len(l) < 2 {
		return false
	}
	for i := 0; i < len(l); i++ {
		if c := l[i]; c < 'a' || c > 'z' {
			if c != '-' || i == 0 || i == len(l)-1 {
				return false
			}
		}
	}
	return true
}

type countKey struct {
	lemma string
	pos   string
	sense int
}

// readCounts reads how often each sense was tagged: "lemma%ss_type:... sense_number count".
func readCounts(path string) (map[countKey]float64, error) {
	out := map[countKey]float64{}
	err := eachLine(path, func(line string) error {
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil
		}
		lemma, rest, ok := strings.Cut(f[0], "%")
		if !ok || rest == "" {
			return nil
		}
		pos := map[byte]string{'1': "n", '2': "v", '3': "a", '4': "r", '5': "a"}[rest[0]]
		n, err1 := strconv.Atoi(f[1])
		c, err2 := strconv.Atoi(f[2])
		if pos == "" || err1 != nil || err2 != nil {
			return nil
		}
		out[countKey{lemma, pos, n}] += float64(c)
		return nil
	})
	return out, err
}

// readIndex adds each usable lemma's senses of one part of speech, in
// index order (most frequent first).
func readIndex(path, pos string, counts map[countKey]float64, senses map[string][]sense) error {
	return eachLine(path, func(line string) error {
		if strings.HasPrefix(line, " ") {
			return nil // licence header
		}
		f := strings.Fields(line)
		if len(f) < 6 || !usable(f[0]) {
			return nil
		}
		synsetCnt, _ := strconv.Atoi(f[2])
		offsets := f[len(f)-synsetCnt:]
		for i, off := range offsets {
			w := counts[countKey{f[0], pos, i + 1}] + 1/float64(i+1)
			senses[f[0]] = append(senses[f[0]], sense{synset: pos + off, weight: w})
		}
		return nil
	})
}

// readData reads each synset's lemmas, hypernyms and derivational links.
func readData(path, pos string, synsets map[string]*synset) error {
	return eachLine(path, func(line string) error {
		if strings.HasPrefix(line, " ") {
			return nil
		}
		f := strings.Fields(line)
		wcnt, err := strconv.ParseInt(f[3], 16, 32)
		if err != nil {
			return fmt.Errorf("%s: word count %q: %w", path, f[3], err)
		}
		s := &synset{derived: map[string][]string{}}
		at := 4
		for i := 0; i < int(wcnt); i++ {
			l := strings.ToLower(f[at])
			if j := strings.IndexByte(l, '('); j > 0 { // adjective marker: "(a)", "(p)"
				l = l[:j]
			}
			s.lemmas = append(s.lemmas, l)
			at += 2
		}
		pcnt, _ := strconv.Atoi(f[at])
		at++
		for i := 0; i < pcnt; i++ {
			sym, target, tpos, srcTgt := f[at], f[at+1], f[at+2], f[at+3]
			at += 4
			if tpos == "s" {
				tpos = "a"
			}
			switch sym {
			case "@", "@i":
				s.hypernyms = append(s.hypernyms, tpos+target)
			case "+":
				src, _ := strconv.ParseInt(srcTgt[:2], 16, 32)
				tgt, _ := strconv.ParseInt(srcTgt[2:], 16, 32)
				if src > 0 && tgt > 0 && int(src) <= len(s.lemmas) {
					// The target's lemma is resolved once every synset is read.
					s.derived[s.lemmas[src-1]] = append(s.derived[s.lemmas[src-1]], fmt.Sprintf("%s#%d", tpos+target, tgt))
				}
			}
		}
		synsets[pos+f[0]] = s
		return nil
	})
}

// readExceptions lists "form base" for the irregular forms whose base is
// in the table.
func readExceptions(dict string, senses map[string][]sense) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, pf := range posFiles {
		err := eachLine(filepath.Join(dict, pf.name+".exc"), func(line string) error {
			f := strings.Fields(line)
			if len(f) < 2 || !usable(f[0]) {
				return nil
			}
			for _, base := range f[1:] {
				if _, ok := senses[base]; ok && base != f[0] && !seen[f[0]+" "+base] {
					seen[f[0]+" "+base] = true
					out = append(out, f[0]+" "+base)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

func eachLine(path string, fn func(string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if err := fn(sc.Text()); err != nil {
			return err
		}
	}
	return sc.Err()
}

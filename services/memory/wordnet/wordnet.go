// Package wordnet tells the memory service which English words mean the
// same or nearly the same thing, offline: a table built from Princeton's
// WordNet 3.0 (see LICENSE-WordNet), shipped in the binary. For each
// single-word lemma it holds the lemma's frequent senses (synsets, with
// how often the lemma is used in each), one level of hypernyms per sense,
// the lemma's derivationally related words, and WordNet's irregular word
// forms; regular inflections are undone by WordNet's own detachment rules.
//
// It knows general English only: no product names, no jargon, no phrases
// ("on call"), and a sense it drops as rare it never offers.
package wordnet

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

//go:generate go run ./gen -o table.gz

//go:embed table.gz
var tableGz []byte

// Sense is one meaning of a word: a synset id and the share of the word's
// uses that mean it (a word's senses' weights sum to 1).
type Sense struct {
	Synset int32
	Weight float32
}

type member struct {
	word   int32
	weight float32 // the word's weight for the synset
}

type table struct {
	index   map[string]int32 // lemma → word number
	lemmas  []string
	senseAt []int32 // word i's senses are senses[senseAt[i]:senseAt[i+1]]
	senses  []Sense
	derived [][]int32
	hyper   [][]int32  // synset → hypernym synsets
	members [][]member // synset → words having it as a kept sense
	exc     map[string][]int32
}

var (
	loadOnce sync.Once
	loaded   *table
	loadErr  error
)

// get returns the table, read from the embedded data on first use (some
// tens of milliseconds). The data is built with the package, so failing to
// read it is a build error, not a runtime condition.
func get() *table {
	loadOnce.Do(func() { loaded, loadErr = parse(tableGz) })
	if loadErr != nil {
		panic("wordnet: embedded table: " + loadErr.Error())
	}
	return loaded
}

// Load reads the table now, so that the first search does not wait for it.
func Load() { get() }

func parse(gz []byte) (*table, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	line := func() string {
		if !sc.Scan() {
			return ""
		}
		return sc.Text()
	}
	count := func(what string) (int, error) {
		l := line()
		n, unit, _ := strings.Cut(l, " ")
		v, err := strconv.Atoi(n)
		if err != nil || unit != what {
			return 0, fmt.Errorf("expected a count of %s, got %q", what, l)
		}
		return v, nil
	}
	if l := line(); l != "wordnet-table 1" {
		return nil, fmt.Errorf("unknown table version %q", l)
	}
	nsyn, err := count("synsets")
	if err != nil {
		return nil, err
	}
	t := &table{hyper: make([][]int32, nsyn), members: make([][]member, nsyn)}
	for i := 0; i < nsyn; i++ {
		for _, f := range strings.Fields(line()) {
			h, err := strconv.Atoi(f)
			if err != nil || h >= nsyn {
				return nil, fmt.Errorf("synset %d: bad hypernym %q", i, f)
			}
			t.hyper[i] = append(t.hyper[i], int32(h))
		}
	}
	nw, err := count("words")
	if err != nil {
		return nil, err
	}
	t.index = make(map[string]int32, nw)
	t.lemmas = make([]string, nw)
	t.senseAt = make([]int32, 1, nw+1)
	t.derived = make([][]int32, nw)
	derivedNames := make([][]string, nw)
	for i := 0; i < nw; i++ {
		l := line()
		f := strings.Split(l, "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("word line %q", l)
		}
		t.lemmas[i] = f[0]
		t.index[f[0]] = int32(i)
		for _, s := range strings.Fields(f[1]) {
			id, w, _ := strings.Cut(s, ":")
			sid, err1 := strconv.Atoi(id)
			wt, err2 := strconv.ParseFloat(w, 32)
			if err1 != nil || err2 != nil || sid >= nsyn {
				return nil, fmt.Errorf("word %q: bad sense %q", f[0], s)
			}
			t.senses = append(t.senses, Sense{Synset: int32(sid), Weight: float32(wt)})
			t.members[sid] = append(t.members[sid], member{word: int32(i), weight: float32(wt)})
		}
		t.senseAt = append(t.senseAt, int32(len(t.senses)))
		derivedNames[i] = strings.Fields(f[2])
	}
	for i, names := range derivedNames {
		for _, d := range names {
			if j, ok := t.index[d]; ok {
				t.derived[i] = append(t.derived[i], j)
			}
		}
	}
	nf, err := count("forms")
	if err != nil {
		return nil, err
	}
	t.exc = make(map[string][]int32, nf)
	for i := 0; i < nf; i++ {
		form, base, _ := strings.Cut(line(), " ")
		if j, ok := t.index[base]; ok {
			t.exc[form] = append(t.exc[form], j)
		}
	}
	return t, sc.Err()
}

// Senses returns the frequent senses of a word, lowercase, in any
// inflected form ("children" → child's), heaviest first; nil for a word
// WordNet does not know. The slice is shared: do not change it.
func Senses(word string) []Sense {
	t := get()
	if i, ok := t.lookup(word); ok {
		return t.senses[t.senseAt[i]:t.senseAt[i+1]]
	}
	return nil
}

// Base returns the lemma a word is a form of ("children" → "child",
// "started" → "start"), and whether WordNet knows it.
func Base(word string) (string, bool) {
	t := get()
	if i, ok := t.lookup(word); ok {
		return t.lemmas[i], true
	}
	return "", false
}

// Hypernyms returns the synsets one level above a kept sense's synset
// ("font" → "type"); nil for a synset that is only someone's hypernym.
func Hypernyms(synset int32) []int32 {
	t := get()
	if synset < 0 || int(synset) >= len(t.hyper) {
		return nil
	}
	return t.hyper[synset]
}

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

// table is the parsed data, in flat arrays: a hundred thousand small
// slices would cost more than the data they hold.
type table struct {
	index   map[string]int32 // lemma → word number
	lemmas  []string         // substrings of one string
	tagged  []int32          // by word: times in the tagged corpus
	total   float64          // all words' tagged
	senseAt []int32          // word i's senses are senses[senseAt[i]:senseAt[i+1]]
	senses  []Sense
	derAt   []int32 // word i's derived words are derived[derAt[i]:derAt[i+1]]
	derived []int32
	hypAt   []int32 // synset i's hypernyms are hyper[hypAt[i]:hypAt[i+1]]
	hyper   []int32
	memAt   []int32 // synset i's words are members[memAt[i]:memAt[i+1]]
	members []member
	exc     map[string]int32
	// forms are exc reversed, by base, made on first use (Forms).
	formsOnce sync.Once
	forms     map[int32][]string
}

var (
	loadOnce sync.Once
	loaded   *table
	loadErr  error
)

// get returns the table, read from the embedded data on first use (about a
// tenth of a second). The data is built with the package, so failing to
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
	var sb strings.Builder
	if _, err := io.Copy(&sb, zr); err != nil {
		return nil, err
	}
	r := &tableReader{rest: sb.String()}
	if l := r.line(); l != "wordnet-table 2" {
		return nil, fmt.Errorf("unknown table version %q", l)
	}
	total, err := r.count("tagged")
	if err != nil {
		return nil, err
	}
	nsyn, err := r.count("synsets")
	if err != nil {
		return nil, err
	}
	t := &table{total: float64(total), hypAt: make([]int32, 1, nsyn+1), memAt: make([]int32, nsyn+1)}
	if err := t.readHypernyms(r, nsyn); err != nil {
		return nil, err
	}
	nw, err := r.count("words")
	if err != nil {
		return nil, err
	}
	derivedNames, err := t.readWords(r, nw, nsyn)
	if err != nil {
		return nil, err
	}
	t.placeMembers(nsyn, nw)
	t.linkDerived(derivedNames)
	nf, err := r.count("forms")
	if err != nil {
		return nil, err
	}
	t.readForms(r, nf)
	return t, nil
}

// tableReader reads the table's text a line at a time.
type tableReader struct{ rest string }

func (r *tableReader) line() string {
	l, rest, _ := strings.Cut(r.rest, "\n")
	r.rest = rest
	return l
}

// count reads a line "N what".
func (r *tableReader) count(what string) (int, error) {
	l := r.line()
	n, unit, _ := strings.Cut(l, " ")
	v, err := strconv.Atoi(n)
	if err != nil || unit != what {
		return 0, fmt.Errorf("expected a count of %s, got %q", what, l)
	}
	return v, nil
}

// readHypernyms reads a line of hypernyms for each of nsyn synsets.
func (t *table) readHypernyms(r *tableReader, nsyn int) error {
	for i := 0; i < nsyn; i++ {
		for _, f := range strings.Fields(r.line()) {
			h, err := strconv.Atoi(f)
			if err != nil || h >= nsyn {
				return fmt.Errorf("synset %d: bad hypernym %q", i, f)
			}
			t.hyper = append(t.hyper, int32(h))
		}
		t.hypAt = append(t.hypAt, int32(len(t.hyper)))
	}
	return nil
}

// readWords reads nw word lines (lemma, tagged count, senses, derived
// words), counting each synset's words as it goes. It returns the derived
// words' names, which can be resolved once every word is read.
func (t *table) readWords(r *tableReader, nw, nsyn int) ([]string, error) {
	t.index = make(map[string]int32, nw)
	t.lemmas = make([]string, nw)
	t.tagged = make([]int32, nw)
	t.senseAt = make([]int32, 1, nw+1)
	derivedNames := make([]string, nw)
	for i := 0; i < nw; i++ {
		l := r.line()
		f := strings.Split(l, "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("word line %q", l)
		}
		t.lemmas[i] = f[0]
		t.index[f[0]] = int32(i)
		n, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, fmt.Errorf("word %q: bad count %q", f[0], f[1])
		}
		t.tagged[i] = int32(n)
		for _, s := range strings.Fields(f[2]) {
			id, w, _ := strings.Cut(s, ":")
			sid, err1 := strconv.Atoi(id)
			wt, err2 := strconv.ParseFloat(w, 32)
			if err1 != nil || err2 != nil || sid >= nsyn {
				return nil, fmt.Errorf("word %q: bad sense %q", f[0], s)
			}
			t.senses = append(t.senses, Sense{Synset: int32(sid), Weight: float32(wt)})
			t.memAt[sid+1]++
		}
		t.senseAt = append(t.senseAt, int32(len(t.senses)))
		derivedNames[i] = f[3]
	}
	return derivedNames, nil
}

// placeMembers lists each synset's words: counted by readWords, placed now.
func (t *table) placeMembers(nsyn, nw int) {
	for i := 1; i <= nsyn; i++ {
		t.memAt[i] += t.memAt[i-1]
	}
	t.members = make([]member, len(t.senses))
	fill := append([]int32(nil), t.memAt[:nsyn]...)
	for w := 0; w < nw; w++ {
		for _, s := range t.senses[t.senseAt[w]:t.senseAt[w+1]] {
			t.members[fill[s.Synset]] = member{word: int32(w), weight: s.Weight}
			fill[s.Synset]++
		}
	}
}

// linkDerived resolves each word's derived words to their indexes,
// dropping the names the table does not hold.
func (t *table) linkDerived(derivedNames []string) {
	t.derAt = make([]int32, 1, len(derivedNames)+1)
	for _, names := range derivedNames {
		for _, d := range strings.Fields(names) {
			if j, ok := t.index[d]; ok {
				t.derived = append(t.derived, j)
			}
		}
		t.derAt = append(t.derAt, int32(len(t.derived)))
	}
}

// readForms reads nf inflected forms and their bases.
func (t *table) readForms(r *tableReader, nf int) {
	t.exc = make(map[string]int32, nf)
	for i := 0; i < nf; i++ {
		form, base, _ := strings.Cut(r.line(), " ")
		if _, dup := t.exc[form]; dup {
			continue // the first base listed is the commonest
		}
		if j, ok := t.index[base]; ok {
			t.exc[form] = j
		}
	}
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
	if synset < 0 || int(synset) >= len(t.hypAt)-1 {
		return nil
	}
	return t.hyper[t.hypAt[synset]:t.hypAt[synset+1]]
}

// Lookup returns Senses(word) and the share of the words of WordNet's
// sense-tagged corpus that are word, in any form (0 for a word it never
// saw): how common the word is.
func Lookup(word string) ([]Sense, float64) {
	t := get()
	if i, ok := t.lookup(word); ok {
		return t.senses[t.senseAt[i]:t.senseAt[i+1]], float64(t.tagged[i]) / t.total
	}
	return nil, 0
}

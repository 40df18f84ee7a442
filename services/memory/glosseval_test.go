package memory_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// glossSynset is a WordNet noun sense: a word that names it and its
// definition, in which the word does not occur.
type glossSynset struct{ word, gloss string }

// readGlosses reads every 25th noun synset of Debian's wordnet-base that
// has a single-word name (of more than three letters) whose first four
// letters its definition does not hold.
func readGlosses(tb testing.TB) []glossSynset {
	f, err := os.Open("/usr/share/wordnet/data.noun")
	if err != nil {
		if os.Getenv("OPENHUMAN_TEST_WORDNET") != "" {
			tb.Fatalf("OPENHUMAN_TEST_WORDNET is set but WordNet is not installed (apt-get install wordnet-base): %v", err)
		}
		tb.Skipf("WordNet is not installed (apt-get install wordnet-base): %v", err)
	}
	defer f.Close()
	var out []glossSynset
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 0; sc.Scan(); {
		line := sc.Text()
		if strings.HasPrefix(line, " ") { // the licence
			continue
		}
		if n++; n%25 != 0 {
			continue
		}
		head, gloss, ok := strings.Cut(line, " | ")
		if !ok {
			continue
		}
		gloss, _, _ = strings.Cut(gloss, ";") // the definition, not its examples
		fs := strings.Fields(head)
		words, _ := strconv.ParseInt(fs[3], 16, 32)
		for i := 0; i < int(words) && 4+2*i < len(fs); i++ {
			w := strings.ToLower(fs[4+2*i])
			if len(w) > 3 && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == "" &&
				!strings.Contains(strings.ToLower(gloss), w[:4]) && len(strings.Fields(gloss)) >= 4 {
				out = append(out, glossSynset{w, strings.TrimSpace(gloss)})
				break
			}
		}
	}
	return out
}

// TestEvalGlosses checks retrieval on text nobody here wrote or chose:
// WordNet's definitions are learned, and each is looked for by a word that
// names it but does not occur in it ("abacus" for "a calculator that
// performs arithmetic functions by manually sliding counters on rods"), so
// only meaning can find it. It prints recall@5 and MRR per mode for the
// plain hash embedder and the default hash-glove, and fails when the
// default mode does worse than one of its own legs. It takes a second:
// make test runs it whenever WordNet is installed (.ci/run installs it).
func TestEvalGlosses(t *testing.T) {
	if testing.Short() {
		t.Skip("learns 1,715 definitions and asks for each three times; run without -short")
	}
	glosses := readGlosses(t)
	ctx := context.Background()
	var table strings.Builder
	fmt.Fprintf(&table, "\nWordNet definitions found by a word naming them (%d, none holding the word): recall@5 / MRR\n\n", len(glosses))
	fmt.Fprintln(&table, "| embedder | default | keyword | vector |\n| --- | ---: | ---: | ---: |")
	defer func() { t.Log(table.String()) }()
	for _, emb := range []memory.Embedder{localembed.NewHashEmbedder(0), localembed.NewGloveEmbedder(0)} {
		st := sqlite.New(filepath.Join(t.TempDir(), "memory.db"))
		if err := st.Open(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		svc := memory.NewService(st, &memory.Options{Embedder: emb})
		items := make([]memory.Item, len(glosses))
		for i, g := range glosses {
			items[i] = memory.Item{Kind: "learning", LearningKind: "fact", Text: g.gloss, Source: "client", Provenance: "cli"}
		}
		res, err := svc.Remember(ctx, items)
		if err != nil {
			t.Fatal(err)
		}
		row := map[string]evalScore{}
		for _, mode := range evalModes {
			var s evalScore
			for i, g := range glosses {
				s.add(fetchRanks(t, svc, mode, g.word, func(id string) bool { return id == res[i].ID }), 1)
			}
			row[mode] = s
		}
		cell := func(s evalScore) string { return fmt.Sprintf("%.3f / %.3f", s.recall5(), s.mrr()) }
		fmt.Fprintf(&table, "| %s | %s | %s | %s |\n", emb.Model(), cell(row["default"]), cell(row["keyword"]), cell(row["vector"]))
		for _, leg := range []string{"keyword", "vector"} {
			if row["default"].recall5() < row[leg].recall5() {
				t.Errorf("%s: default recall@5 %.3f below its %s leg's %.3f", emb.Model(), row["default"].recall5(), leg, row[leg].recall5())
			}
		}
	}
}

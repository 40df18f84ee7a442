package locomo_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/retrieval"
	"github.com/openhuman-go/openhuman-go/tools/eval/locomo"
)

// ablationMixed are the conversations the ablation asks in the mixed
// memory, one of each half, beside the gate's documents (gateDocs).
var ablationMixed = []string{"26", "44"}

// TestAblation switches off each feature and switch of the ranking's
// profile in turn (retrieval.Profile.Without) and prints what every half
// of LoCoMo then measures, as learnings and as a conversation (hybrid
// fetch and recall), and the mixed memory: a row per feature, its
// differences from the whole profile in questions. A feature stays only
// where switching it off costs at least three questions of the design
// half and helps neither the held-out half nor the mixed memory
// (docs/memory.md). It measures; it asserts only that each run was whole.
// `make eval-ablation` (the end of `make eval`) runs it.
func TestAblation(t *testing.T) {
	if os.Getenv("OPENHUMAN_EVAL_ABLATION") == "" {
		t.Skip("the ablation takes a quarter of an hour or more: make eval-ablation (OPENHUMAN_EVAL_ABLATION=1)")
	}
	wd, convs, emb := loadAll(t)
	docs := ablationDocs(t, wd, emb)
	full := retrieval.DefaultProfile()
	base := measure(t, convs, emb, docs, nil)
	fmt.Printf("\nAblation: each feature switched off, against the whole profile (%s)\n", base.line())
	fmt.Printf("differences in questions: recall@5 (each question's share of its evidence in the first five hits, summed), fetch's first hit, recall's first citation, \"I don't know\" on adversarial questions\n\n")
	fmt.Printf("%-22s %-30s %-30s %-22s\n", "switched off", "design r5/first/cited/idk", "held-out r5/first/cited/idk", "mixed r5/first/cited")
	for _, name := range full.Features() {
		p, err := full.Without(name)
		if err != nil {
			t.Fatal(err)
		}
		f := measure(t, convs, emb, docs, &p)
		fmt.Printf("%-22s %-30s %-30s %-22s\n", name, f.diff(base, "design"), f.diff(base, "held-out"), f.diffMixed(base))
	}
}

// figures are one profile's counts, by half (and "mixed"): fetch's first
// hit is evidence, recall's first citation is, recall said "I don't
// know" on an adversarial question, and recall@5 summed over the
// questions (a question's share of its evidence in the first five hits);
// both loads summed.
type figures map[string][4]float64

func (f figures) diff(base figures, half string) string {
	a, b := f[half], base[half]
	return fmt.Sprintf("%+.1f / %+.0f / %+.0f / %+.0f", a[3]-b[3], a[0]-b[0], a[1]-b[1], a[2]-b[2])
}

func (f figures) diffMixed(base figures) string {
	a, b := f["mixed"], base["mixed"]
	return fmt.Sprintf("%+.1f / %+.0f / %+.0f", a[3]-b[3], a[0]-b[0], a[1]-b[1])
}

func (f figures) line() string {
	var parts []string
	for _, h := range []string{"design", "held-out", "mixed"} {
		parts = append(parts, fmt.Sprintf("%s %.1f/%.0f/%.0f/%.0f", h, f[h][3], f[h][0], f[h][1], f[h][2]))
	}
	return strings.Join(parts, ", ")
}

// measure asks every conversation alone, both ways of loading, and those
// of ablationMixed beside docs, ranking with p.
func measure(t *testing.T, convs []locomo.Conversation, emb memory.Embedder, docs string, p *retrieval.Profile) figures {
	t.Helper()
	alone, mixed := locomo.NewReport(), locomo.NewReport()
	for _, c := range convs {
		for _, load := range locomo.Loads {
			m := mustOpen(t, func(dir string) (*locomo.Memory, error) { return locomo.OpenMemory(dir+"/memory.db", emb, p) })
			askAll(t, m, c, load, alone, []string{"hybrid"})
			m.Close()
		}
		if docs != "" && (c.ID == ablationMixed[0] || c.ID == ablationMixed[1]) {
			m := mustOpen(t, func(dir string) (*locomo.Memory, error) { return locomo.OpenMixed(dir, docs, emb, p) })
			askAll(t, m, c, locomo.AsLearnings, mixed, []string{"hybrid"})
			m.Close()
		}
	}
	out := figures{}
	for _, half := range []string{"design", "held-out"} {
		var f [4]float64
		for _, load := range locomo.Loads {
			s := alone.At(half, load, "hybrid", "all")
			f[0] += float64(s.First)
			f[1] += float64(s.Cited)
			f[2] += float64(alone.IDK[half+"|"+load])
			f[3] += s.Recall5
		}
		out[half] = f
		s := mixed.At(half, locomo.AsLearnings, "hybrid", "all")
		m := out["mixed"]
		m[0] += float64(s.First)
		m[1] += float64(s.Cited)
		m[3] += s.Recall5
		out["mixed"] = m
	}
	return out
}

// ablationDocs is the gate's documents' memory, or "" (with a note) when
// its documents are missing.
func ablationDocs(t *testing.T, wd string, emb memory.Embedder) string {
	docs, err := gateDocsMemory(t, wd, emb)
	if err != nil {
		fmt.Printf("no mixed memory: %v\n", err)
	}
	return docs
}

package memory_test

import (
	"bufio"
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
	"github.com/openhuman-go/openhuman-go/services/memory/memorymain"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// The retrieval evaluation (testdata/eval): facts about a household, a
// team and its systems, learned one by one among thousands of WordNet
// sentences (distractors.txt, see WORDNET-LICENSE), corrections learned
// last; then questions asked as people ask them. Each question names the
// facts that answer it and its type. The questions are split in two halves
// by a hash of their id, fixed before anything was tuned: the design half
// is what ranking was tuned on, the held-out half is what the targets are
// checked on. `make eval` runs it on all the distractors and prints every
// figure; `make test` runs it on fewer and fails below the targets.

type evalFact struct {
	id, kind, supersedes, text string
}

type evalQuestion struct {
	id, typ, text string
	want          []string // fact ids; none for a question memory cannot answer
}

// heldOut reports whether a question is in the held-out half.
func (q evalQuestion) heldOut() bool {
	h := fnv.New32a()
	h.Write([]byte(q.id))
	return h.Sum32()%2 == 1
}

func readEvalLines(tb testing.TB, path string, fields int) [][]string {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, " | ", fields)
		if len(parts) != fields {
			tb.Fatalf("%s:%d: want %d fields separated by \" | \"", path, n, fields)
		}
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		out = append(out, parts)
	}
	return out
}

func loadEval(tb testing.TB) ([]evalFact, []evalQuestion, []string) {
	var facts []evalFact
	known := map[string]bool{}
	for _, p := range readEvalLines(tb, "testdata/eval/facts.txt", 3) {
		f := evalFact{id: p[0], kind: p[1], text: p[2]}
		if old, ok := strings.CutPrefix(f.kind, "correction:"); ok {
			f.kind, f.supersedes = "correction", old
			if !known[old] {
				tb.Fatalf("fact %s corrects %s, which is not a fact before it", f.id, old)
			}
		}
		if known[f.id] {
			tb.Fatalf("fact id %s is used twice", f.id)
		}
		known[f.id] = true
		facts = append(facts, f)
	}
	var qs []evalQuestion
	seen := map[string]bool{}
	for _, p := range readEvalLines(tb, "testdata/eval/questions.txt", 4) {
		q := evalQuestion{id: p[0], typ: p[1], text: p[3]}
		if p[2] != "-" {
			q.want = strings.Split(p[2], ",")
		}
		for _, id := range q.want {
			if !known[id] {
				tb.Fatalf("question %s expects fact %s, which does not exist", q.id, id)
			}
		}
		if (q.typ == "none") != (len(q.want) == 0) || seen[q.id] {
			tb.Fatalf("question %s: only type none has no expected fact, and ids are unique", q.id)
		}
		seen[q.id] = true
		qs = append(qs, q)
	}
	raw, err := os.ReadFile("testdata/eval/distractors.txt")
	if err != nil {
		tb.Fatal(err)
	}
	return facts, qs, strings.Split(strings.TrimSpace(string(raw)), "\n")
}

// evalService opens a service on a fresh store. `make eval` measures the
// embedder the environment configures (OPENHUMAN_EMBEDDINGS_PROVIDER,
// _BASE_URL, _MODEL, _API_KEY, _RECALL_MIN_COSINE, and OPENHUMAN_MODELS,
// _DIR, _HUB_URL; the variables only, not a config file; the default when
// unset, with models off unless OPENHUMAN_MODELS says on), and waits for
// every vector however long a model server takes; `make test` always
// measures the offline default.
func evalService(tb testing.TB) (*memory.Service, *sqlite.Store, memory.Embedder) {
	tb.Helper()
	var emb memory.Embedder = localembed.NewGloveEmbedder(0)
	var cosine float64
	if os.Getenv("OPENHUMAN_EVAL_FULL") != "" {
		cfg, err := config.Load(tb.TempDir(), func(k string) string {
			if k == "OPENHUMAN_MODELS" && os.Getenv(k) == "" {
				return "off" // never the public hub from a test
			}
			if strings.HasPrefix(k, "OPENHUMAN_EMBEDDINGS_") || strings.HasPrefix(k, "OPENHUMAN_MODELS") {
				return os.Getenv(k)
			}
			return ""
		})
		if err != nil {
			tb.Fatal(err)
		}
		emb, cosine = memorymain.Embedder(cfg.Memory.Embeddings), cfg.Memory.Embeddings.RecallMinCosine
		if _, err := emb.Embed(context.Background(), []string{"ping"}); err != nil {
			tb.Fatalf("the configured embedder %s: %v", emb.Model(), err)
		}
	}
	st := sqlite.New(filepath.Join(tb.TempDir(), "memory.db"))
	if err := st.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	svc := memory.NewService(st, &memory.Options{Embedder: emb, InlineTimeout: time.Hour, RecallMinCosine: cosine})
	clock := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	svc.SetClock(func() time.Time { clock = clock.Add(time.Second); return clock })
	return svc, st, emb
}

// runEval learns the facts among distractors (that many of them) through
// memory.learn on a real SQLite store, and asks every question.
func runEval(tb testing.TB, distractors int) *evalReport {
	facts, qs, lines := loadEval(tb)
	lines = lines[:min(distractors, len(lines))]
	svc, st, emb := evalService(tb)
	ctx := context.Background()

	// Facts go in at random places among the distractors (a fixed seed),
	// corrections after everything: memory grows around what matters.
	var plain, corrections []evalFact
	for _, f := range facts {
		if f.supersedes != "" {
			corrections = append(corrections, f)
		} else {
			plain = append(plain, f)
		}
	}
	r := rand.New(rand.NewSource(7))
	at := map[int][]evalFact{} // distractor index → facts learned before it
	for _, f := range plain {
		i := r.Intn(len(lines) + 1)
		at[i] = append(at[i], f)
	}
	idOf := map[string]string{}
	factOf := map[string]string{}
	learnFact := func(f evalFact) {
		res, err := svc.Learn(ctx, memory.LearnParams{Text: f.text, Kind: f.kind}, cursor)
		if err != nil {
			tb.Fatalf("learning %s: %v", f.id, err)
		}
		idOf[f.id], factOf[res.ID] = res.ID, f.id
	}
	var batch []memory.Item
	flush := func() {
		if len(batch) > 0 {
			if _, err := svc.Remember(ctx, batch); err != nil {
				tb.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	for i := 0; i <= len(lines); i++ {
		if len(at[i]) > 0 {
			flush()
			for _, f := range at[i] {
				learnFact(f)
			}
		}
		if i < len(lines) {
			batch = append(batch, memory.Item{Kind: "learning", LearningKind: "fact", Text: lines[i], Source: "client", Provenance: "mcp:cursor"})
		}
	}
	flush()
	for _, f := range corrections {
		learnFact(f)
	}
	// A request the embedder failed leaves its items to the background
	// worker, which does not run here: they would be measured on words
	// alone.
	if left, err := st.Unembedded(ctx, emb.Model(), 0, 1); err != nil || len(left) > 0 {
		tb.Fatalf("items left without a vector of %s (the embedder failed a request; see its log): %v", emb.Model(), err)
	}

	rep := &evalReport{items: len(lines) + len(facts), embedder: emb.Model(), builtin: emb.Model() == localembed.NewGloveEmbedder(0).Model(), fetch: map[string]map[string]map[string]*evalScore{}, recall: map[string]*recallScore{}}
	for _, h := range evalHalves {
		rep.fetch[h] = map[string]map[string]*evalScore{}
		rep.recall[h] = &recallScore{}
		for _, m := range evalModes {
			rep.fetch[h][m] = map[string]*evalScore{}
		}
	}
	score := func(h, mode, typ string) *evalScore {
		s := rep.fetch[h][mode][typ]
		if s == nil {
			s = &evalScore{}
			rep.fetch[h][mode][typ] = s
		}
		return s
	}
	for _, q := range qs {
		h := half(q)
		if len(q.want) > 0 {
			for _, mode := range evalModes {
				ranks := fetchRanks(tb, svc, mode, q.text, func(id string) bool { return slices.Contains(q.want, factOf[id]) })
				score(h, mode, q.typ).add(ranks, len(q.want))
				score(h, mode, "all").add(ranks, len(q.want))
				if mode == "default" && (len(ranks) == 0 || ranks[0] > 5) {
					rep.misses = append(rep.misses, fmt.Sprintf("%s %s %s fetch: %q", h, q.id, q.typ, q.text))
				}
			}
		}
		ans, err := svc.Recall(ctx, memory.RecallParams{Question: q.text, Limit: 5}, anyone)
		if err != nil {
			tb.Fatal(err)
		}
		idk := strings.HasPrefix(ans.Answer, memory.IDontKnow)
		rs := rep.recall[h]
		switch {
		case len(q.want) == 0:
			rs.unanswerable++
			if idk {
				rs.idk++
			} else {
				rep.misses = append(rep.misses, fmt.Sprintf("%s %s none recall answered: %q → %q", h, q.id, q.text, firstLine(ans.Answer)))
			}
		default:
			rs.answerable++
			switch {
			case idk:
				rs.falseIDK++
				rep.misses = append(rep.misses, fmt.Sprintf("%s %s %s recall said it does not know: %q", h, q.id, q.typ, q.text))
			case slices.Contains(q.want, factOf[ans.Citations[0].ID]):
				rs.firstRight++
			default:
				rep.misses = append(rep.misses, fmt.Sprintf("%s %s %s recall cited another note first: %q → %q", h, q.id, q.typ, q.text, firstLine(ans.Answer)))
			}
		}
	}
	return rep
}

// fetchRanks asks memory.fetch (mode, top ten) for query and returns the
// places, from 1, of the hits right says answer it.
func fetchRanks(tb testing.TB, svc *memory.Service, mode, query string, right func(id string) bool) []int {
	tb.Helper()
	p := memory.FetchParams{Query: query, Limit: 10}
	if mode != "default" {
		p.Mode = mode
	}
	got, err := svc.Fetch(context.Background(), p, anyone)
	if err != nil {
		tb.Fatalf("%s %q: %v", mode, query, err)
	}
	var ranks []int
	for i, hit := range got.Hits {
		if right(hit.ID) {
			ranks = append(ranks, i+1)
		}
	}
	return ranks
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimPrefix(s, "From memory:\n- "), "\n")
	return s
}

// evalDistractors is how many distractors `make test` hides the facts
// among; OPENHUMAN_EVAL_FULL=1 (`make eval`) uses all of them.
const evalDistractors = 2000

func TestEval(t *testing.T) {
	n := evalDistractors
	if os.Getenv("OPENHUMAN_EVAL_FULL") != "" {
		n = math.MaxInt
	} else if testing.Short() {
		t.Skip("the retrieval evaluation learns thousands of items; run without -short")
	}
	rep := runEval(t, n)
	if os.Getenv("OPENHUMAN_EVAL_FULL") != "" {
		fmt.Print(rep.table())
		// Only the design half's misses are shown: the held-out half is
		// measured, never looked into while tuning.
		if os.Getenv("OPENHUMAN_EVAL_MISSES") != "" {
			fmt.Println("\ndesign half misses:")
			for _, m := range rep.misses {
				if strings.HasPrefix(m, "design ") {
					fmt.Println(m)
				}
			}
		}
	} else {
		t.Log("\n" + rep.table())
	}
	rep.check(t)
}

// check fails the test below the targets, on the held-out half. Where a
// target is not reached yet its floor is what the ranking reaches now, so
// that a change that loses ground fails; the target is named beside it.
func (rep *evalReport) check(t *testing.T) {
	fetch := rep.fetch["held-out"]
	// The floors are the default offline embedder's; another is measured
	// against its own keyword leg only.
	atLeast := func(what string, got, floor float64) {
		if rep.builtin && got < floor {
			t.Errorf("held-out half: %s is %.3f, below %.2f", what, got, floor)
		}
	}
	atLeast("default-mode plain recall@5", fetch["default"]["plain"].recall5(), 0.95)
	// Targets 0.75 and 0.80: not reached offline. With the GloVe embedder
	// they read 0.68 and 0.77 on 2,000 distractors (make test), 0.56 and
	// 0.78 on all of them (make eval; 0.60 and 0.79 with the plain hash
	// embedder); the floors hold for both.
	atLeast("default-mode paraphrase recall@5", fetch["default"]["paraphrase"].recall5(), 0.55)
	// What the GloVe embedder brought (0.33 and 0.54 with the plain hash
	// embedder on all distractors): 0.67 and 0.69 on 2,000, 0.50 and 0.69
	// on all.
	atLeast("default-mode synonym recall@5", fetch["default"]["synonym"].recall5(), 0.45)
	atLeast("default-mode abbreviation recall@5", fetch["default"]["abbreviation"].recall5(), 0.65)
	rs := rep.recall["held-out"]
	atLeast("memory.recall's first citation right", ratio(rs.firstRight, rs.answerable), 0.75)
	atLeast("memory.recall's \"I don't know\" on unanswerable questions", ratio(rs.idk, rs.unanswerable), 0.85)
	// The default is never worse than keyword alone: not one question
	// fewer in the top five, and MRR within one question's slip from
	// first to second place.
	for typ, kw := range fetch["keyword"] {
		def := fetch["default"][typ]
		if def.hits5 < kw.hits5 {
			t.Errorf("held-out half, %s questions: default recall@5 %.3f is below keyword's %.3f", typ, def.recall5(), kw.recall5())
		}
		if def.mrr() < kw.mrr()-0.01 {
			t.Errorf("held-out half, %s questions: default MRR %.3f is below keyword's %.3f", typ, def.mrr(), kw.mrr())
		}
	}
}

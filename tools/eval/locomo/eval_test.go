package locomo_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/tools/eval/locomo"
)

// TestLoCoMo stores each conversation in a memory of its own, in the two
// ways a user can (a learning per turn in the paper's baseline form, or
// `ingest --conversation` with a thread per session, speakers and times),
// asks every answerable question through memory.fetch in each mode and
// through memory.recall, and prints the figures of both halves; then again
// in the mixed memory, beside the documents of scripts/eval-corpus.sh. It
// measures; it asserts only that the run was whole. `make eval-locomo`
// runs it.
func TestLoCoMo(t *testing.T) {
	if os.Getenv("OPENHUMAN_EVAL_LOCOMO") == "" {
		t.Skip("the LoCoMo evaluation takes minutes: make eval-locomo (OPENHUMAN_EVAL_LOCOMO=1)")
	}
	wd, convs, emb := loadAll(t)
	if half := os.Getenv("OPENHUMAN_EVAL_LOCOMO_HALF"); half != "" {
		convs = only(convs, half)
	}
	quick := os.Getenv("OPENHUMAN_EVAL_LOCOMO_QUICK") != ""
	rep := locomo.NewReport()
	start := time.Now()
	for _, c := range convs {
		for _, load := range locomo.Loads {
			// A subtest each, so that each memory is gone before the next.
			t.Run("conv-"+c.ID+"/"+load, func(t *testing.T) {
				m := mustOpen(t, func(dir string) (*locomo.Memory, error) { return locomo.OpenMemory(dir+"/memory.db", emb, nil) })
				modes := modesOf(load)
				if quick {
					modes = []string{"hybrid"}
				}
				askAll(t, m, c, load, rep, modes)
			})
		}
	}
	fmt.Printf("\nembedder %s, in %s\n", locomo.EmbedderName(emb), time.Since(start).Round(time.Second))
	for _, half := range []string{"design", "held-out"} {
		fmt.Printf("\nLoCoMo, %s half (conversations %s)\n%s", half, conversationsOf(convs, half), rep.Table(half))
	}
	fmt.Printf("fetch p50: hybrid %s, keyword %s, vector %s\n", rep.P50("hybrid"), rep.P50("keyword"), rep.P50("vector"))
	for _, half := range []string{"design", "held-out"} {
		if s := rep.Summary(half); s != "" {
			fmt.Print(s)
		}
	}
	if quick {
		return // hybrid alone only: a rule's ablation in a minute or two
	}
	mixedRun(t, wd, convs, emb, rep)
}

// mixedRun is the second part of TestLoCoMo: each conversation in a copy
// of the documents' memory, hybrid fetch and recall.
func mixedRun(t *testing.T, wd string, convs []locomo.Conversation, emb memory.Embedder, alone *locomo.Report) {
	corpus, stamp, err := locomo.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	repo, err := locomo.Repo(wd)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	docs, err := locomo.DocsMemory(context.Background(), repo, corpus, stamp, nil, emb)
	if err != nil {
		t.Fatal(err)
	}
	built := time.Since(start)
	mixed := locomo.NewReport()
	start = time.Now()
	for _, c := range convs {
		for _, load := range locomo.Loads {
			t.Run("mixed/conv-"+c.ID+"/"+load, func(t *testing.T) {
				m := mustOpen(t, func(dir string) (*locomo.Memory, error) { return locomo.OpenMixed(dir, docs, emb, nil) })
				askAll(t, m, c, load, mixed, []string{"hybrid"})
			})
		}
	}
	fmt.Printf("\nmixed memory: each conversation beside %s (%s, built or found in %s); its run took %s\n",
		docsSummary(t, docs), docs, built.Round(time.Second), time.Since(start).Round(time.Second))
	for _, half := range []string{"design", "held-out"} {
		fmt.Printf("\nLoCoMo, %s half, alone and mixed (hybrid fetch, every category)\n%s", half, locomo.MixedTable(alone, mixed, half))
	}
}

func only(convs []locomo.Conversation, half string) []locomo.Conversation {
	var out []locomo.Conversation
	for _, c := range convs {
		if (half == "held-out") == locomo.HeldOut(c.ID) {
			out = append(out, c)
		}
	}
	return out
}

func modesOf(load string) []string {
	if load == locomo.AsConversation {
		return []string{"hybrid"}
	}
	return []string{"hybrid", "keyword", "vector"}
}

func mustOpen(t testing.TB, open func(dir string) (*locomo.Memory, error)) *locomo.Memory {
	t.Helper()
	m, err := open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// askAll stores c in m as load says, waits for its vectors and asks its
// questions into rep.
func askAll(t testing.TB, m *locomo.Memory, c locomo.Conversation, load string, rep *locomo.Report, modes []string) {
	t.Helper()
	start, ctx := time.Now(), context.Background()
	l, err := locomo.Store(ctx, m, c, load)
	if err == nil {
		err = m.AwaitVectors(ctx)
	}
	if err == nil {
		err = l.Ask(ctx, rep, modes)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d turns, %d questions, %s", len(c.Turns()), len(c.Questions), time.Since(start).Round(time.Millisecond))
}

// docsSummary counts the documents' chunks.
func docsSummary(t testing.TB, docs string) string {
	t.Helper()
	n, err := locomo.Chunks(docs)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d chunks of documents", n)
}

func conversationsOf(convs []locomo.Conversation, half string) string {
	var ids []string
	for _, c := range only(convs, half) {
		ids = append(ids, c.ID)
	}
	return strings.Join(ids, ", ")
}

// loadAll finds and loads the data beside the checkout holding the
// working directory (returned), and the embedder the evaluation measures.
func loadAll(t *testing.T) (string, []locomo.Conversation, memory.Embedder) {
	t.Helper()
	wd, _ := os.Getwd()
	convs, err := locomo.FindAndLoad(wd)
	if err != nil {
		t.Fatal(err)
	}
	emb, err := locomo.Embedder()
	if err != nil {
		t.Fatal(err)
	}
	return wd, convs, emb
}

package locomo_test

import (
	"context"
	"os"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/tools/eval/locomo"
)

// gateDocs are the folders of the documents the gate's memory holds: the
// manual pages of system calls and of overviews, a few thousand chunks.
var gateDocs = []string{"man/man2", "man/man7"}

// TestMixedMemory is the mixed memory's gate in `make test`: design
// conversation 26, a learning per turn, in a memory that also holds the
// manual pages of gateDocs, every answerable question through hybrid fetch
// and recall. Its floors sit just under what it measured when they were
// set (the figures are in the messages); falling below one means a
// person's notes are lost among their documents more than they were.
func TestMixedMemory(t *testing.T) {
	wd, _ := os.Getwd()
	convs, err := locomo.FindAndLoad(wd)
	if err != nil {
		t.Skipf("the mixed memory's gate needs LoCoMo: %v", err)
	}
	emb, err := locomo.Embedder()
	if err != nil {
		t.Fatal(err)
	}
	docs, err := gateDocsMemory(t, wd, emb)
	if err != nil {
		t.Skipf("the mixed memory's gate needs its documents: %v", err)
	}
	var c locomo.Conversation
	for _, c = range convs {
		if c.ID == "26" {
			break
		}
	}
	rep := locomo.NewReport()
	m := mustOpen(t, func(dir string) (*locomo.Memory, error) { return locomo.OpenMixed(dir, docs, emb, nil) })
	askAll(t, m, c, locomo.AsLearnings, rep, []string{"hybrid"})
	s := rep.At("design", locomo.AsLearnings, "hybrid", "all")
	n, _ := locomo.Chunks(docs)
	t.Logf("conversation 26 beside %d chunks: recall@5 %.3f, first cited %.3f (%d/%d)", n, s.Recall5Mean(), s.CitedShare(), s.Cited, s.Asked)
	// Measured when set, beside 3,277 chunks, over seven runs (the last
	// three after the sentence model's merge): recall@5 0.554 to 0.584,
	// first cited 0.340 to 0.353 (51 to 53 of 150). The mixed memory's
	// figures move from run to run, where the conversation's alone do not;
	// the floors leave room for that.
	const recallFloor, citedFloor = 0.54, 0.33
	if s.Recall5Mean() < recallFloor {
		t.Errorf("recall@5 in the mixed memory %.3f, below its floor %.2f", s.Recall5Mean(), recallFloor)
	}
	if s.CitedShare() < citedFloor {
		t.Errorf("recall's first citation in the mixed memory %.3f, below its floor %.2f", s.CitedShare(), citedFloor)
	}
}

// gateDocsMemory is the memory of the gate's documents (gateDocs), built
// or found in the cache; the error says the documents are missing
// (scripts/eval-corpus.sh makes them).
func gateDocsMemory(t *testing.T, wd string, emb memory.Embedder) (string, error) {
	t.Helper()
	corpus, stamp, err := locomo.Corpus()
	if err != nil {
		return "", err
	}
	repo, err := locomo.Repo(wd)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := locomo.DocsMemory(context.Background(), repo, corpus, stamp, gateDocs, emb)
	if err != nil {
		t.Fatal(err)
	}
	return docs, nil
}

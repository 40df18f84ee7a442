package locomo_test

import (
	"os"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/tools/eval/locomo"
)

// BenchmarkFetch asks a LoCoMo conversation's questions, one memory.fetch
// each, of the memory holding its turns as learnings: retrieval on real
// text, without a transport. It is skipped where the data is not.
func BenchmarkFetch(b *testing.B) {
	wd, _ := os.Getwd()
	convs, err := locomo.FindAndLoad(wd)
	if err != nil {
		b.Skip(err)
	}
	var c locomo.Conversation
	for _, c = range convs {
		if c.ID == "43" { // a design conversation, 680 turns
			break
		}
	}
	emb, err := locomo.Embedder()
	if err != nil {
		b.Fatal(err)
	}
	m := mustOpen(b, func(dir string) (*locomo.Memory, error) { return locomo.OpenMemory(dir+"/memory.db", emb, nil) })
	if _, err := locomo.Store(b.Context(), m, c, locomo.AsLearnings); err != nil {
		b.Fatal(err)
	}
	if err := m.AwaitVectors(b.Context()); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		q := c.Questions[i%len(c.Questions)]
		if _, err := m.Svc.Fetch(b.Context(), memory.FetchParams{Query: q.Text, Limit: 10}, locomo.Caller); err != nil {
			b.Fatal(err)
		}
	}
}

package locomo_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/gateway/locomo"
)

// BenchmarkFetch asks a LoCoMo conversation's questions, one memory.fetch
// each, of the memory holding its turns as learnings, through the gateway
// in-process: retrieval on real text, without a transport. It is skipped
// where the data is not.
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
	e := newEval(b, "learnings", c)
	var args [][]byte
	for _, q := range c.Questions {
		raw, _ := json.Marshal(map[string]any{"query": q.Text, "limit": 10})
		args = append(args, raw)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := e.g.CallTool(b.Context(), "memory.fetch", args[i%len(args)], cli); err != nil {
			b.Fatal(err)
		}
	}
}

package natsbus_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/llm"
	"github.com/openhuman-go/openhuman-go/pkg/llm/llmtest"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// The scope is applied before the rankings keep their best: a limited
// caller still gets its best items when thousands of items it may not see
// match the query better.
func TestScopedFetchFindsItsItemAmongThousandsOfBetterOnes(t *testing.T) {
	r := mustServe(t, nil)
	ctx := context.Background()
	if _, err := r.svc.Remember(ctx, []memory.Item{{Kind: "learning", Text: "Acme planning notes: the Orbit roadmap deadline is in March.", Source: "client", Provenance: "cli",
		Meta: memory.Meta{Workspace: "a"}}}); err != nil {
		t.Fatal(err)
	}
	others := make([]memory.Item, 2000)
	for i := range others {
		others[i] = memory.Item{Kind: "learning", Source: "client", Provenance: "cli", Meta: memory.Meta{Workspace: "b"},
			Text: fmt.Sprintf("Orbit roadmap due March %d", i)}
	}
	if _, err := r.svc.Remember(ctx, others); err != nil {
		t.Fatal(err)
	}
	query := "Orbit roadmap due March"
	for _, mode := range []string{"keyword", "vector", "hybrid"} {
		// Unlimited, the item is not among the best fetch pages through at
		// all: a filter applied after ranking would find nothing.
		args := map[string]any{"query": query, "mode": mode, "limit": 100}
		for pages := 0; ; pages++ {
			res := r.must(t, contract.MemoryFetch.Endpoint(), args, admin)
			for _, h := range list(res, "hits") {
				if workspaceOf(h) == "a" {
					t.Fatalf("%s: a's item ranks on page %d of everyone's; make the others match better", mode, pages+1)
				}
			}
			next, ok := res["next_cursor"].(string)
			if !ok {
				if pages == 0 {
					t.Fatalf("%s: one page of everyone's hits", mode)
				}
				break
			}
			args["cursor"] = next
		}
		res := r.must(t, contract.MemoryFetch.Endpoint(), map[string]any{"query": query, "mode": mode, "limit": 5}, callerA)
		hits := list(res, "hits")
		if len(hits) != 1 || hits[0]["text"] != "Acme planning notes: the Orbit roadmap deadline is in March." || res["next_cursor"] != nil {
			t.Errorf("%s as a: %v", mode, res)
		}
	}
	rec := r.must(t, contract.MemoryRecall.Endpoint(), map[string]any{"question": "When is the Orbit roadmap due?"}, callerA)
	if c := list(rec, "citations"); len(c) != 1 || workspaceOf(c[0]) != "a" {
		t.Errorf("recall as a: %v", rec)
	}
	for _, def := range []contract.Tool{contract.TreeSearch, contract.TreeRecall} {
		res := r.must(t, def.Endpoint(), map[string]any{"query": query, "k": 3}, callerA)
		if ids := chunkIDs(res); len(ids) != 1 || (def.Name == contract.TreeSearch.Name && res["total"] != 1.0) {
			t.Errorf("%s as a: %v", def.Name, res)
		}
	}
}

// recall's language model writes its answer from the citations only, and
// a limited caller's citations are of its workspaces: the model never reads
// another workspace's item.
func TestScopedRecallShowsTheModelOnlyTheCallersItems(t *testing.T) {
	model := llmtest.New(t, func(int, llm.Request) llmtest.Reply { return llmtest.Text("Lena owns the Orbit roadmap [1].") })
	r := mustServe(t, &memory.Options{Writer: llm.NewWriter(llm.New(model.URL, "toy", "", 30*time.Second), memory.AnswerInstructions)})
	seed(t, r, "a", "b", "")
	res := r.must(t, contract.MemoryRecall.Endpoint(), map[string]any{"question": "Who owns the Orbit roadmap?"}, callerA)
	if res["model"] != "toy" || res["answer"] != "Lena owns the Orbit roadmap [1]." {
		t.Fatalf("recall did not use the model: %v", res)
	}
	for _, c := range list(res, "citations") {
		if workspaceOf(c) != "a" {
			t.Errorf("cited %v", c)
		}
	}
	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	var shown strings.Builder
	for _, m := range reqs[0].Messages {
		shown.WriteString(m.Content)
	}
	if !strings.Contains(shown.String(), "Lena owns the Orbit roadmap for Acme.") {
		t.Errorf("the model was not shown a's item: %q", shown.String())
	}
	for _, other := range []string{"Beta", "Raj", "no workspace", "nobody"} {
		if strings.Contains(shown.String(), other) {
			t.Errorf("the model was shown %q: %q", other, shown.String())
		}
	}
}

package locomo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/locomo"
)

// TestLoCoMo stores each conversation in a memory of its own, in the two
// ways a user can (a learning per turn in the paper's baseline form, or
// `ingest --conversation` with a thread per session, speakers and times),
// asks every answerable question through memory.fetch in each mode and
// through memory.recall, and prints the figures of both halves. It measures;
// it asserts only that the run was whole. `make eval-locomo` runs it.
func TestLoCoMo(t *testing.T) {
	if os.Getenv("OPENHUMAN_EVAL_LOCOMO") == "" {
		t.Skip("the LoCoMo evaluation takes about a minute: make eval-locomo (OPENHUMAN_EVAL_LOCOMO=1)")
	}
	wd, _ := os.Getwd()
	convs, err := locomo.FindAndLoad(wd)
	if err != nil {
		t.Fatal(err)
	}
	rep := locomo.NewReport()
	half := os.Getenv("OPENHUMAN_EVAL_LOCOMO_HALF")
	start := time.Now()
	for _, c := range convs {
		if half != "" && (half == "held-out") != locomo.HeldOut(c.ID) {
			continue
		}
		for _, load := range []string{"learnings", "conversation"} {
			// A subtest each, so that each memory is gone before the next.
			t.Run("conv-"+c.ID+"/"+load, func(t *testing.T) {
				start := time.Now()
				e := newEval(t, load, c)
				e.awaitVectors(t)
				e.ask(t, rep)
				t.Logf("%d turns, %d questions, %s", len(c.Turns()), len(c.Questions), time.Since(start).Round(time.Millisecond))
			})
		}
	}
	fmt.Printf("\nembedder %s, in %s\n", embedderOf(), time.Since(start).Round(time.Second))
	for _, half := range []string{"design", "held-out"} {
		fmt.Printf("\nLoCoMo, %s half (conversations %s)\n%s", half, conversationsOf(convs, half), rep.Table(half))
	}
	fmt.Printf("fetch p50: hybrid %s, keyword %s, vector %s\n", rep.P50("hybrid"), rep.P50("keyword"), rep.P50("vector"))
}

func conversationsOf(convs []locomo.Conversation, half string) string {
	var ids []string
	for _, c := range convs {
		if locomo.HeldOut(c.ID) == (half == "held-out") {
			ids = append(ids, c.ID)
		}
	}
	return strings.Join(ids, ", ")
}

// embedderEnv is the embedder's configuration from this process's
// environment: make eval-use-lite points it at a sentence model; without
// it the memory uses the offline default.
func embedderEnv() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "OPENHUMAN_EMBEDDINGS_") || strings.HasPrefix(k, "OPENHUMAN_MODELS") {
			env[k] = v
		}
	}
	return env
}

func embedderOf() string {
	env := embedderEnv()
	if env["OPENHUMAN_EMBEDDINGS_PROVIDER"] == "" {
		return "offline default"
	}
	out := env["OPENHUMAN_EMBEDDINGS_PROVIDER"] + ":" + env["OPENHUMAN_EMBEDDINGS_MODEL"]
	if w := env["OPENHUMAN_EMBEDDINGS_FUSION_WEIGHT"]; w != "" {
		out += ", fusion weight " + w
	}
	return out
}

var cli = contract.CallContext{Source: "locomo", Transport: contract.TransportCLI}

type eval struct {
	g    *gateway.Gateway
	c    locomo.Conversation
	load string
	dias map[string][]string // item id → the turns it holds
}

func newEval(t testing.TB, load string, c locomo.Conversation) *eval {
	t.Helper()
	e := &eval{g: gatewaytest.Start(t, embedderEnv(), gateway.Options{}), c: c, load: load, dias: map[string][]string{}}
	ctx := context.Background()
	if load == "learnings" {
		for _, s := range c.Sessions {
			for _, turn := range s.Turns {
				var res struct{ ID string }
				e.call(t, "memory.learn", map[string]any{"text": locomo.LearningText(s, turn)}, &res)
				e.dias[res.ID] = append(e.dias[res.ID], turn.DiaID)
			}
		}
		return e
	}
	byText := map[string][]string{}
	for _, s := range c.Sessions {
		var turns []map[string]any
		for i, turn := range s.Turns {
			m := map[string]any{"thread_id": fmt.Sprintf("conv-%s/session_%d", c.ID, s.N), "speaker": turn.Speaker, "text": locomo.TurnText(turn)}
			if !s.When.IsZero() {
				m["timestamp"] = s.When.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
			}
			turns = append(turns, m)
			key := norm(turn.Speaker + ": " + locomo.TurnText(turn))
			byText[key] = append(byText[key], turn.DiaID)
		}
		if _, err := e.g.IngestConversation(ctx, turns, cli); err != nil {
			t.Fatalf("conv-%s session %d: %v", c.ID, s.N, err)
		}
	}
	// The turns' ids come from listing them; each is known by its text.
	cursor := ""
	for {
		var page struct {
			Items []struct{ ID, Text string }
			Next  string `json:"next_cursor"`
		}
		args := map[string]any{"limit": 100}
		if cursor != "" {
			args["cursor"] = cursor
		}
		e.call(t, "memory.list", args, &page)
		for _, it := range page.Items {
			d, ok := byText[norm(it.Text)]
			if !ok {
				t.Fatalf("conv-%s: a listed item is no turn: %q", c.ID, it.Text)
			}
			e.dias[it.ID] = d
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	return e
}

// awaitVectors waits until every turn has a vector of the active model: a
// model server slower than the inline deadline leaves the rest to the
// background, and a question asked before then would measure the keyword
// leg alone.
func (e *eval) awaitVectors(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Minute)
	for {
		r := e.g.Readiness(context.Background())
		if r.MemoryStore != nil && r.MemoryStore.Embedding != nil && r.MemoryStore.Embedding.Pending == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("conv-%s %s: turns still wait for vectors after 30 minutes: %s", e.c.ID, e.load, r.MemoryEmbedding)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// norm is a text as memory keeps it, which trims and folds the spaces
// some turns of the data end in.
func norm(s string) string { return strings.Join(strings.Fields(s), " ") }

func (e *eval) call(t testing.TB, tool string, args map[string]any, out any) {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := e.g.CallTool(context.Background(), tool, raw, cli)
	if err != nil {
		t.Fatalf("conv-%s %s %s: %v", e.c.ID, e.load, tool, err)
	}
	if err := json.Unmarshal(res, out); err != nil {
		t.Fatalf("conv-%s %s: %v in %s", e.c.ID, tool, err, res)
	}
}

func (e *eval) ask(t testing.TB, rep *locomo.Report) {
	half := "design"
	if locomo.HeldOut(e.c.ID) {
		half = "held-out"
	}
	for _, q := range e.c.Questions {
		if q.Category == 5 {
			var rec struct{ Answer string }
			e.call(t, "memory.recall", map[string]any{"question": q.Text}, &rec)
			rep.Adversarial[half+"|"+e.load]++
			if strings.HasPrefix(rec.Answer, "I don't know") {
				rep.IDK[half+"|"+e.load]++
			}
			continue
		}
		if len(q.Evidence) == 0 {
			continue
		}
		cat := locomo.Categories[q.Category]
		modes := []string{"hybrid", "keyword", "vector"}
		if e.load == "conversation" {
			modes = modes[:1]
		}
		for _, mode := range modes {
			var res struct{ Hits []struct{ ID string } }
			start := time.Now()
			e.call(t, "memory.fetch", map[string]any{"query": q.Text, "mode": mode, "limit": 10}, &res)
			if e.load == "learnings" {
				rep.Latency(mode, time.Since(start))
			}
			var hits [][]string
			for _, h := range res.Hits {
				hits = append(hits, e.dias[h.ID])
			}
			for _, c := range []string{cat, "all"} {
				rep.At(half, e.load, mode, c).Add(hits, q.Evidence)
			}
		}
		var rec struct{ Citations []struct{ ID string } }
		e.call(t, "memory.recall", map[string]any{"question": q.Text}, &rec)
		var first []string
		if len(rec.Citations) > 0 {
			first = e.dias[rec.Citations[0].ID]
		}
		for _, c := range []string{cat, "all"} {
			rep.At(half, e.load, "hybrid", c).AddCitation(first, q.Evidence)
		}
	}
}

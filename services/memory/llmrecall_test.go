package memory_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/llm"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
)

// fakeChat is an OpenAI-compatible chat server whose reply the test sets;
// status 429 for the first busy requests, as rate-limited APIs answer.
type fakeChat struct {
	reply    atomic.Value // string
	busy     atomic.Int32
	lastUser atomic.Value // string
}

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		w.WriteHeader(404)
		return
	}
	var req llm.Request
	json.NewDecoder(r.Body).Decode(&req)
	if f.busy.Add(-1) >= 0 {
		w.WriteHeader(429)
		w.Write([]byte(`{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`))
		return
	}
	f.lastUser.Store(req.Messages[len(req.Messages)-1].Content)
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": req.Model,
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": f.reply.Load().(string)}}},
	})
}

func TestRecallWithLanguageModel(t *testing.T) {
	fake := &fakeChat{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	st := mustOpenStoreAt(t, t.TempDir()+"/m.db")
	writer := llm.NewWriter(llm.New(srv.URL+"/v1", "tiny-model", "", 5*time.Second), memory.AnswerInstructions)
	svc := memory.NewService(st, &memory.Options{Embedder: localembed.NewGloveEmbedder(0), Writer: writer})
	ctx := context.Background()
	for _, text := range []string{"Deploys to production happen on Tuesdays after the standup.", "Production deploys need two approvals."} {
		if _, err := svc.Learn(ctx, memory.LearnParams{Text: text}, cursor); err != nil {
			t.Fatal(err)
		}
	}
	ask := func(reply string) *memory.RecallResult {
		t.Helper()
		fake.reply.Store(reply)
		res, err := svc.Recall(ctx, memory.RecallParams{Question: "When do production deploys happen?"}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	t.Run("written answer with checked citations", func(t *testing.T) {
		res := ask("They happen on Tuesdays [1], with two approvals [1, 2] and a sign-off [7].")
		if res.Model != "tiny-model" || res.Answer != "They happen on Tuesdays [1], with two approvals [1][2] and a sign-off." || len(res.Warnings) != 0 {
			t.Fatalf("%+v", res)
		}
		if got, _ := fake.lastUser.Load().(string); !strings.Contains(got, "[1] Deploys to production happen on Tuesdays") || !strings.Contains(got, "Question: When do production deploys happen?") {
			t.Errorf("prompt: %q", got)
		}
	})
	t.Run("an uncited answer is not trusted", func(t *testing.T) {
		res := ask("Every day at noon.")
		if res.Model != "extractive" || !strings.Contains(res.Answer, "[1]") || len(res.Warnings) != 1 {
			t.Fatalf("%+v", res)
		}
	})
	t.Run("the model may say it does not know", func(t *testing.T) {
		res := ask("I don't know.")
		if !strings.HasPrefix(res.Answer, memory.IDontKnow) || len(res.Citations) != 0 || res.Model != "tiny-model" {
			t.Fatalf("%+v", res)
		}
	})
	t.Run("429 then success", func(t *testing.T) {
		fake.busy.Store(1)
		res := ask("Tuesdays [1].")
		if res.Model != "tiny-model" {
			t.Fatalf("%+v", res)
		}
	})
	t.Run("model down: extractive answer and a warning", func(t *testing.T) {
		down := memory.NewService(st, &memory.Options{Embedder: localembed.NewGloveEmbedder(0), Writer: llm.NewWriter(llm.New("http://127.0.0.1:1/v1", "tiny-model", "", time.Second), memory.AnswerInstructions)})
		res, err := down.Recall(ctx, memory.RecallParams{Question: "When do production deploys happen?"}, anyone)
		if err != nil || res.Model != "extractive" || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "cannot be reached") {
			t.Fatalf("%+v %v", res, err)
		}
	})
	t.Run("nothing relevant: no model call", func(t *testing.T) {
		fake.lastUser.Store("")
		res, _ := svc.Recall(ctx, memory.RecallParams{Question: "What is the capital of Mongolia?"}, anyone)
		if !strings.HasPrefix(res.Answer, memory.IDontKnow) || fake.lastUser.Load().(string) != "" {
			t.Fatalf("%+v", res)
		}
	})
	t.Run("the model is shown the day a line was said", func(t *testing.T) {
		if _, err := svc.Learn(ctx, memory.LearnParams{Text: "[2025-03-04 09:12] Ana: the billing migration finished yesterday."}, cursor); err != nil {
			t.Fatal(err)
		}
		fake.reply.Store("On 3 March 2025 [1].")
		if _, err := svc.Recall(ctx, memory.RecallParams{Question: "When did the billing migration finish?"}, anyone); err != nil {
			t.Fatal(err)
		}
		if got, _ := fake.lastUser.Load().(string); !strings.Contains(got, "yesterday (3 March 2025)") {
			t.Errorf("prompt: %q", got)
		}
	})
}

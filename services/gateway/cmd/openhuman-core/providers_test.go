package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRemoteEmbedderAndLanguageModel configures the binary with an
// OpenAI-compatible embedding server and chat model (local fakes that
// answer as the API documents) and uses them through MCP.
func TestRemoteEmbedderAndLanguageModel(t *testing.T) {
	var embedCalls, chatCalls atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/embeddings", func(w http.ResponseWriter, r *http.Request) {
		embedCalls.Add(1)
		var req struct{ Input []string }
		json.NewDecoder(r.Body).Decode(&req)
		var data []map[string]any
		for i, text := range req.Input {
			// A toy model: one dimension per topic word.
			v := []float32{0.01, 0.01, 0.01}
			for j, w := range []string{"coffee", "deploy", "holiday"} {
				if strings.Contains(strings.ToLower(text), w) {
					v[j] = 1
				}
			}
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": v})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "toy"})
	})
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		chatCalls.Add(1)
		json.NewEncoder(w).Encode(map[string]any{"model": "toy-chat", "choices": []map[string]any{
			{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": "Black, no sugar [1]."}}}})
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	p := startMCP(t, t.TempDir(),
		"OPENHUMAN_EMBEDDINGS_PROVIDER=openai", "OPENHUMAN_EMBEDDINGS_BASE_URL="+srv.URL+"/v1", "OPENHUMAN_EMBEDDINGS_MODEL=toy",
		"OPENHUMAN_LLM_BASE_URL="+srv.URL+"/v1", "OPENHUMAN_LLM_MODEL=toy-chat")
	p.initialize("providers")
	p.tool(1, "memory.learn", map[string]any{"text": "Maya drinks her coffee black, no sugar."})
	p.tool(2, "memory.learn", map[string]any{"text": "We deploy on Tuesdays."})
	if embedCalls.Load() == 0 {
		t.Fatal("the embedding server was never called")
	}
	hits := p.tool(3, "memory.fetch", map[string]any{"query": "coffee preferences", "mode": "vector"})["hits"].([]any)
	if len(hits) == 0 || !strings.Contains(hits[0].(map[string]any)["text"].(string), "coffee") {
		t.Fatalf("vector search with the remote model: %v", hits)
	}
	ans := p.tool(4, "memory.recall", map[string]any{"question": "How does Maya take her coffee?"})
	if ans["model"] != "toy-chat" || ans["answer"] != "Black, no sugar [1]." || chatCalls.Load() != 1 {
		t.Fatalf("recall with the language model: %v", ans)
	}
}

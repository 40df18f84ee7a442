package openai

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// fakeOpenAI answers /v1/embeddings the way OpenAI documents it, including
// its error bodies; indices come back shuffled, as the API allows.
func fakeOpenAI(t *testing.T, key string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" {
			w.WriteHeader(404)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+key {
			w.WriteHeader(401)
			w.Write([]byte(`{"error":{"message":"Incorrect API key provided: sk-wrong.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`))
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if req.Model != "text-embedding-3-small" {
			w.WriteHeader(404)
			w.Write([]byte(`{"error":{"message":"The model ` + "`" + req.Model + "`" + ` does not exist","type":"invalid_request_error","code":"model_not_found"}}`))
			return
		}
		type datum struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []datum
		for i := len(req.Input) - 1; i >= 0; i-- {
			data = append(data, datum{"embedding", i, []float32{float32(len(req.Input[i])), 3, 4}})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model, "usage": map[string]int{"prompt_tokens": 8, "total_tokens": 8}})
	}))
}

func TestEmbed(t *testing.T) {
	srv := fakeOpenAI(t, "sk-right")
	defer srv.Close()
	e := New(srv.URL+"/v1", "text-embedding-3-small", "sk-right", 2, 5*time.Second)
	vs, err := e.Embed(context.Background(), []string{"a", "bb", "ccc"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Model() != "openai:text-embedding-3-small" || len(vs) != 3 {
		t.Fatalf("%s %v", e.Model(), vs)
	}
	for i, v := range vs {
		want := float32(i + 1) // each input's length, in input order despite shuffled indices
		n := math.Sqrt(float64(want*want + 25))
		if math.Abs(float64(v[0])-float64(want)/n) > 1e-6 {
			t.Errorf("vector %d = %v: wrong order or not unit length", i, v)
		}
	}
	for name, tc := range map[string]struct {
		e    *Embedder
		code contract.Code
		want string
	}{
		"bad key":     {New(srv.URL+"/v1", "text-embedding-3-small", "sk-wrong", 8, time.Second), contract.CodeEngine, "Incorrect API key"},
		"bad model":   {New(srv.URL+"/v1", "nope", "sk-right", 8, time.Second), contract.CodeEngine, "does not exist"},
		"server down": {New("http://127.0.0.1:1/v1", "m", "", 8, time.Second), contract.CodeUnavailable, "cannot be reached"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tc.e.Embed(context.Background(), []string{"x"})
			if contract.ErrorCode(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v", err)
			}
		})
	}
}

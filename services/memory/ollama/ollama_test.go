package ollama

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// fakeOllama answers /api/embed as Ollama documents it: 404 with
// {"error": "..."} for a model that is not pulled, 500 while loading.
func fakeOllama(t *testing.T, busyFirst int32) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if calls.Add(1) <= busyFirst {
			w.WriteHeader(500)
			w.Write([]byte(`{"error":"llama runner process has terminated"}`))
			return
		}
		if req.Model != "nomic-embed-text" {
			w.WriteHeader(404)
			w.Write([]byte(`{"error":"model \"` + req.Model + `\" not found, try pulling it first"}`))
			return
		}
		out := make([][]float32, len(req.Input))
		for i := range out {
			out[i] = []float32{0, 0, 2}
		}
		json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": out, "total_duration": 14143917})
	})), &calls
}

func TestEmbed(t *testing.T) {
	srv, calls := fakeOllama(t, 1)
	defer srv.Close()
	e := New(srv.URL, "nomic-embed-text", 16, 5*time.Second)
	vs, err := e.Embed(context.Background(), []string{"a", "b"})
	if err != nil {
		t.Fatalf("a 500 once must be retried: %v", err)
	}
	if len(vs) != 2 || vs[0][2] != 1 || calls.Load() != 2 {
		t.Fatalf("%v after %d calls", vs, calls.Load())
	}
	_, err = New(srv.URL, "llama-embed", 16, time.Second).Embed(context.Background(), []string{"x"})
	if contract.ErrorCode(err) != contract.CodeEngine || !strings.Contains(err.Error(), "ollama pull llama-embed") {
		t.Fatalf("missing model: %v", err)
	}
}

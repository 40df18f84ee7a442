// Package ollama embeds texts with Ollama's native /api/embed endpoint.
package ollama

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/httpjson"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/vectorindex"
)

var _ memory.Embedder = (*Embedder)(nil)

// Embedder calls POST {BaseURL}/api/embed.
type Embedder struct {
	BaseURL   string // e.g. http://localhost:11434
	ModelName string
	BatchSize int
	client    *httpjson.Client
}

// New returns an embedder; timeout bounds one request.
func New(baseURL, model string, batch int, timeout time.Duration) *Embedder {
	return &Embedder{BaseURL: strings.TrimSuffix(baseURL, "/"), ModelName: model, BatchSize: max(batch, 1),
		client: &httpjson.Client{Service: "Ollama", HTTP: &http.Client{Timeout: timeout}}}
}

// Model names the vector space.
func (e *Embedder) Model() string { return "ollama:" + e.ModelName }

// Embed sends texts in batches and returns unit-length vectors in order.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.BatchSize {
		batch := texts[start:min(start+e.BatchSize, len(texts))]
		var resp struct {
			Embeddings [][]float32 `json:"embeddings"`
		}
		if err := e.client.Post(ctx, e.BaseURL+"/api/embed", nil, map[string]any{"model": e.ModelName, "input": batch}, &resp); err != nil {
			return nil, httpjson.AsContract(err, "check that Ollama runs at memory.embeddings.base_url and has the model (ollama pull "+e.ModelName+")")
		}
		if len(resp.Embeddings) != len(batch) {
			return nil, contract.Errorf(contract.CodeEngine, "Ollama returned %d vectors for %d texts", len(resp.Embeddings), len(batch))
		}
		for _, v := range resp.Embeddings {
			if len(v) == 0 {
				return nil, contract.Errorf(contract.CodeEngine, "Ollama returned an empty vector")
			}
			out = append(out, vectorindex.Normalize(v))
		}
	}
	return out, nil
}

// Package openai embeds texts through any OpenAI-compatible /v1/embeddings
// endpoint: OpenAI itself, Ollama's /v1, llama.cpp server, vLLM.
package openai

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/httpjson"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/vectorindex"
)

var _ memory.Embedder = (*Embedder)(nil)

// Embedder calls POST {BaseURL}/embeddings.
type Embedder struct {
	BaseURL   string // e.g. https://api.openai.com/v1 or http://localhost:11434/v1
	ModelName string
	APIKey    string
	BatchSize int
	client    *httpjson.Client
}

// New returns an embedder; timeout bounds one request.
func New(baseURL, model, apiKey string, batch int, timeout time.Duration) *Embedder {
	return &Embedder{BaseURL: strings.TrimSuffix(baseURL, "/"), ModelName: model, APIKey: apiKey, BatchSize: max(batch, 1),
		client: &httpjson.Client{Service: "embedding server", HTTP: &http.Client{Timeout: timeout}}}
}

// Model names the vector space: the provider and the model.
func (e *Embedder) Model() string { return "openai:" + e.ModelName }

type response struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// Embed sends texts in batches and returns unit-length vectors in order.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	headers := map[string]string{}
	if e.APIKey != "" {
		headers["Authorization"] = "Bearer " + e.APIKey
	}
	for start := 0; start < len(texts); start += e.BatchSize {
		batch := texts[start:min(start+e.BatchSize, len(texts))]
		var resp response
		if err := e.client.Post(ctx, e.BaseURL+"/embeddings", headers, map[string]any{"model": e.ModelName, "input": batch}, &resp); err != nil {
			return nil, httpjson.AsContract(err, "check memory.embeddings base_url, model and api_key")
		}
		if len(resp.Data) != len(batch) {
			return nil, contract.Errorf(contract.CodeEngine, "the embedding server returned %d vectors for %d texts", len(resp.Data), len(batch))
		}
		sort.Slice(resp.Data, func(i, j int) bool { return resp.Data[i].Index < resp.Data[j].Index })
		for _, d := range resp.Data {
			if len(d.Embedding) == 0 {
				return nil, contract.Errorf(contract.CodeEngine, "the embedding server returned an empty vector")
			}
			out = append(out, vectorindex.Normalize(d.Embedding))
		}
	}
	return out, nil
}

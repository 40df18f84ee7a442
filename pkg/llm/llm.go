// Package llm talks to OpenAI-compatible chat completion endpoints (OpenAI,
// Ollama at /v1, llama.cpp server, vLLM, OpenRouter), for the services that
// need a language model: memory's written answers and the agents' tool loop.
package llm

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/httpjson"
)

// Client calls POST {BaseURL}/chat/completions.
type Client struct {
	BaseURL string
	Model   string
	APIKey  string
	http    *httpjson.Client
}

// New returns a client; timeout bounds one completion. 429 and 5xx answers
// are retried with backoff.
func New(baseURL, model, apiKey string, timeout time.Duration) *Client {
	return &Client{BaseURL: strings.TrimSuffix(baseURL, "/"), Model: model, APIKey: apiKey,
		http: &httpjson.Client{Service: "language model", HTTP: &http.Client{Timeout: timeout}, Attempts: 4, Backoff: 500 * time.Millisecond}}
}

// Message is one chat message.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is a function call the model asks for. Arguments is a JSON
// string, as the API sends it.
type ToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Tool offers a function to the model.
type Tool struct {
	Type     string       `json:"type"` // "function"
	Function ToolFunction `json:"function"`
}

// ToolFunction describes a function; Name must match ^[a-zA-Z0-9_-]{1,64}$.
type ToolFunction struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Parameters  any    `json:"parameters,omitempty"`
}

// Request is a chat completion request; Model defaults to the client's.
type Request struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature *float64  `json:"temperature,omitempty"`
	Tools       []Tool    `json:"tools,omitempty"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
}

// Response is the part of a completion we use.
type Response struct {
	Model   string `json:"model"`
	Choices []struct {
		Message      Message `json:"message"`
		FinishReason string  `json:"finish_reason"`
	} `json:"choices"`
}

// Chat runs one completion and returns the first choice's message. Errors
// are contract errors: UNAVAILABLE for what may pass (network, 429, 5xx),
// ENGINE for what will not (a bad key, an unknown model, a malformed answer).
func (c *Client) Chat(ctx context.Context, req Request) (*Message, error) {
	if req.Model == "" {
		req.Model = c.Model
	}
	headers := map[string]string{}
	if c.APIKey != "" {
		headers["Authorization"] = "Bearer " + c.APIKey
	}
	var resp Response
	if err := c.http.Post(ctx, c.BaseURL+"/chat/completions", headers, req, &resp); err != nil {
		return nil, httpjson.AsContract(err, "check llm.base_url, llm.model and llm.api_key (OPENHUMAN_LLM_*)")
	}
	if len(resp.Choices) == 0 {
		return nil, contract.Errorf(contract.CodeEngine, "the language model at %s answered without any choice", c.BaseURL)
	}
	return &resp.Choices[0].Message, nil
}

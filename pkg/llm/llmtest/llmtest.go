// Package llmtest is an OpenAI-compatible chat completions server for
// tests: a script decides each answer from the request, and the server
// answers in the API's documented shapes (tool calls, errors, 429s).
package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/llm"
)

// Reply is one answer of the fake.
type Reply struct {
	Status int         // default 200
	Header http.Header // e.g. Retry-After
	Body   string      // raw body; when empty, a completion of Message
	// Message is the assistant message of a 200 completion.
	Message llm.Message
	Delay   time.Duration
}

// Text is a final answer.
func Text(content string) Reply {
	return Reply{Message: llm.Message{Role: "assistant", Content: content}}
}

// Call is a reply calling one tool (by function name) with arguments.
func Call(function, arguments string) Reply { return Calls([2]string{function, arguments}) }

// Calls is a reply calling several tools at once.
func Calls(calls ...[2]string) Reply {
	m := llm.Message{Role: "assistant"}
	for i, c := range calls {
		tc := llm.ToolCall{ID: fmt.Sprintf("call_%d", i+1), Type: "function"}
		tc.Function.Name, tc.Function.Arguments = c[0], c[1]
		m.ToolCalls = append(m.ToolCalls, tc)
	}
	return Reply{Message: m}
}

// Error is an error answer in the API's shape.
func Error(status int, message string) Reply {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": "invalid_request_error"}})
	return Reply{Status: status, Body: string(b)}
}

// Server is the fake. Its URL ends in /v1, as base URLs do.
type Server struct {
	URL      string
	mu       sync.Mutex
	requests []llm.Request
	script   func(n int, req llm.Request) Reply
}

// New starts a fake answering the n-th request (from 0) with script.
func New(tb testing.TB, script func(n int, req llm.Request) Reply) *Server {
	tb.Helper()
	s := &Server{script: script}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(srv.Close)
	s.URL = srv.URL + "/v1"
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"error":{"message":"unknown path %s"}}`, r.URL.Path)
		return
	}
	var req llm.Request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":"bad JSON: %v"}}`, err)
		return
	}
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	reply := s.script(n, req)
	if reply.Delay > 0 {
		select {
		case <-time.After(reply.Delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range reply.Header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	if reply.Body != "" {
		fmt.Fprint(w, reply.Body)
		return
	}
	finish := "stop"
	if len(reply.Message.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": reply.Message, "finish_reason": finish}},
		"usage":   map[string]int{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}

// Requests returns the requests received so far.
func (s *Server) Requests() []llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.Request{}, s.requests...)
}

// Agent is the sub-agent a request is for, read from its system prompt's
// heading ("# Librarian" → "librarian"), or "".
func Agent(req llm.Request) string {
	if len(req.Messages) == 0 {
		return ""
	}
	for _, line := range strings.Split(req.Messages[0].Content, "\n") {
		if name, ok := strings.CutPrefix(line, "# "); ok && name != "Identity" && name != "Soul" && name != "The user" {
			return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), " ", "_")
		}
	}
	return ""
}

// LastToolResult is the content of the request's last tool (or
// prompt-guided result) message.
func LastToolResult(req llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role == "tool" || (m.Role == "user" && strings.HasPrefix(m.Content, "Result of ")) {
			return m.Content
		}
	}
	return ""
}

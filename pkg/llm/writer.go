package llm

import (
	"context"
	"fmt"
	"strings"
)

// Writer writes an answer to a question from numbered sources, following
// instructions (a system prompt that asks for [n] citations). Memory's
// recall and the web answer both use one, each with its own instructions.
type Writer struct {
	client       *Client
	instructions string
}

// NewWriter returns a writer over client.
func NewWriter(client *Client, instructions string) *Writer {
	return &Writer{client: client, instructions: instructions}
}

// Model is the language model's name.
func (w *Writer) Model() string { return w.client.Model }

// Write sends the numbered sources and the question, at temperature 0.
func (w *Writer) Write(ctx context.Context, question string, sources []string) (string, error) {
	var b strings.Builder
	b.WriteString("Sources:\n")
	for i, s := range sources {
		fmt.Fprintf(&b, "[%d] %s\n", i+1, s)
	}
	b.WriteString("\nQuestion: " + question)
	zero := 0.0
	msg, err := w.client.Chat(ctx, Request{
		Messages:    []Message{{Role: "system", Content: w.instructions}, {Role: "user", Content: b.String()}},
		Temperature: &zero,
	})
	if err != nil {
		return "", err
	}
	return msg.Content, nil
}

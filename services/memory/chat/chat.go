// Package chat writes recall answers with a language model behind an
// OpenAI-compatible chat endpoint, from the notes memory found.
package chat

import (
	"context"
	"fmt"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/llm"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

var _ memory.AnswerWriter = (*Writer)(nil)

// Writer asks the model to answer from numbered notes only.
type Writer struct {
	client *llm.Client
}

// New returns a writer over client.
func New(client *llm.Client) *Writer { return &Writer{client: client} }

// Model is the language model's name.
func (w *Writer) Model() string { return w.client.Model }

const instructions = `You answer questions about the user using only the numbered notes from their memory.
Cite every statement with the numbers of the notes it comes from, in square brackets: [1] or [2][3].
If the notes do not contain the answer, reply exactly: I don't know.
Do not add anything the notes do not say. Be brief.`

// Write sends the question and sources and returns the model's answer.
func (w *Writer) Write(ctx context.Context, question string, sources []string) (string, error) {
	var b strings.Builder
	b.WriteString("Notes:\n")
	for i, s := range sources {
		fmt.Fprintf(&b, "[%d] %s\n", i+1, s)
	}
	b.WriteString("\nQuestion: " + question)
	zero := 0.0
	msg, err := w.client.Chat(ctx, llm.Request{
		Messages:    []llm.Message{{Role: "system", Content: instructions}, {Role: "user", Content: b.String()}},
		Temperature: &zero,
	})
	if err != nil {
		return "", err
	}
	return msg.Content, nil
}

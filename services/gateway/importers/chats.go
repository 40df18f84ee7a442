package importers

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Claude's and ChatGPT's data exports both hold conversations.json: a list
// of conversations, read here one at a time (an export of years of chats
// is hundreds of megabytes). Each becomes a thread of turns (speaker,
// text, time) stored as memory stores any conversation
// (ingest --conversation). Claude's conversation is {uuid, name,
// created_at, chat_messages: [{sender: human|assistant, text, content:
// [{type, text}], created_at}]}. ChatGPT's is {id or conversation_id,
// title, create_time, mapping: {node: {message: {author: {role},
// create_time, content: {content_type, parts}}, parent, children}},
// current_node}: a tree of edits and regenerations, of which the
// conversation as last shown is the path from current_node to the root.

// maxTurnChars is the most of a message one turn carries; a longer message
// (a pasted log) becomes several turns.
const maxTurnChars = contract.MaxLearnText - 1024

type claudeConversation struct {
	UUID      string `json:"uuid"`
	Name      string `json:"name"`
	CreatedAt string `json:"created_at"`
	Messages  []struct {
		Sender  string `json:"sender"`
		Text    string `json:"text"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		CreatedAt string `json:"created_at"`
	} `json:"chat_messages"`
}

func readClaude(path string, opts Options, sink Sink) error {
	return eachConversation(path, sink, func(i int, raw json.RawMessage) error {
		var c claudeConversation
		if err := json.Unmarshal(raw, &c); err != nil || c.UUID == "" {
			return sink.Fault(fmt.Sprintf("conversation %d", i+1), fmt.Errorf("not a Claude conversation (uuid, chat_messages): %v", err))
		}
		thread := "claude:" + c.UUID
		var turns []Turn
		for _, m := range c.Messages {
			text := m.Text
			if strings.TrimSpace(text) == "" {
				var parts []string
				for _, p := range m.Content {
					if p.Type == "text" && strings.TrimSpace(p.Text) != "" {
						parts = append(parts, p.Text)
					}
				}
				text = strings.Join(parts, "\n\n")
			}
			speaker := m.Sender
			switch m.Sender {
			case "human":
				speaker = "user"
			case "assistant":
				speaker = "Claude"
			}
			turns = append(turns, splitTurn(Turn{ThreadID: thread, Speaker: speaker, Text: text, Timestamp: stamp(m.CreatedAt), Workspace: opts.Workspace})...)
		}
		return emitThread(sink, fmt.Sprintf("conversation %q (%s)", c.Name, c.UUID), turns)
	})
}

type chatgptConversation struct {
	ID             string `json:"id"`
	ConversationID string `json:"conversation_id"`
	Title          string `json:"title"`
	CurrentNode    string `json:"current_node"`
	Mapping        map[string]struct {
		Parent  string `json:"parent"`
		Message *struct {
			Author struct {
				Role string `json:"role"`
			} `json:"author"`
			CreateTime any `json:"create_time"`
			Content    struct {
				ContentType string `json:"content_type"`
				Parts       []any  `json:"parts"`
			} `json:"content"`
		} `json:"message"`
	} `json:"mapping"`
}

func readChatGPT(path string, opts Options, sink Sink) error {
	return eachConversation(path, sink, func(i int, raw json.RawMessage) error {
		var c chatgptConversation
		id := ""
		err := json.Unmarshal(raw, &c)
		if err == nil {
			id = c.ConversationID
			if id == "" {
				id = c.ID
			}
		}
		if err != nil || id == "" || c.Mapping == nil {
			return sink.Fault(fmt.Sprintf("conversation %d", i+1), fmt.Errorf("not a ChatGPT conversation (id, mapping): %v", err))
		}
		thread := "chatgpt:" + id
		// The path shown last: from current_node up to the root.
		var path []string
		seen := map[string]bool{}
		for n := c.CurrentNode; n != "" && !seen[n]; n = c.Mapping[n].Parent {
			seen[n] = true
			path = append(path, n)
		}
		slices.Reverse(path)
		var turns []Turn
		for _, n := range path {
			m := c.Mapping[n].Message
			if m == nil || (m.Author.Role != "user" && m.Author.Role != "assistant") || m.Content.ContentType != "text" {
				continue // the root, system prompts, tool calls
			}
			var parts []string
			for _, p := range m.Content.Parts {
				if s, ok := p.(string); ok && strings.TrimSpace(s) != "" {
					parts = append(parts, s)
				}
			}
			speaker := "user"
			if m.Author.Role == "assistant" {
				speaker = "ChatGPT"
			}
			ts := ""
			if t, ok := parseTime(m.CreateTime); ok {
				ts = t.Format(time.RFC3339Nano)
			}
			turns = append(turns, splitTurn(Turn{ThreadID: thread, Speaker: speaker, Text: strings.Join(parts, "\n\n"), Timestamp: ts, Workspace: opts.Workspace})...)
		}
		return emitThread(sink, fmt.Sprintf("conversation %q (%s)", c.Title, id), turns)
	})
}

// eachConversation decodes the list in path one element at a time.
func eachConversation(path string, sink Sink, fn func(i int, raw json.RawMessage) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return fmt.Errorf("%s is not a conversations.json (a JSON list of conversations)", path)
	}
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return sink.Fault(fmt.Sprintf("conversation %d", i+1), fmt.Errorf("the file ends or breaks here (%v): the conversations before it are read", err))
		}
		if err := fn(i, raw); err != nil {
			return err
		}
	}
	return nil
}

// emitThread sends a conversation's turns that hold text; a conversation
// started and left empty (both tools keep those) has nothing to import.
func emitThread(sink Sink, where string, turns []Turn) error {
	turns = slices.DeleteFunc(turns, func(t Turn) bool { return strings.TrimSpace(t.Text) == "" })
	if len(turns) == 0 {
		return nil
	}
	return sink.Turns(where, turns)
}

// stamp is an export's time as RFC 3339, "" when it has none.
func stamp(s string) string {
	if t, ok := parseTime(s); ok {
		return t.Format(time.RFC3339Nano)
	}
	return ""
}

// splitTurn cuts a message longer than a turn holds into turns, at line
// ends where it can.
func splitTurn(t Turn) []Turn {
	r := []rune(t.Text)
	if len(r) <= maxTurnChars {
		return []Turn{t}
	}
	var out []Turn
	for len(r) > 0 {
		end := min(len(r), maxTurnChars)
		if end < len(r) {
			if nl := lastIndex(r[:end], '\n'); nl > end/2 {
				end = nl + 1
			}
		}
		part := t
		part.Text = string(r[:end])
		out = append(out, part)
		r = r[end:]
	}
	return out
}

func lastIndex(r []rune, c rune) int {
	for i := len(r) - 1; i >= 0; i-- {
		if r[i] == c {
			return i
		}
	}
	return -1
}

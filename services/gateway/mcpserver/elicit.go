package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
)

// Elicitation (MCP 2025-06-18): the server asks the client's user a
// question in the middle of a request, with a request of its own
// (elicitation/create), sent on the stream of the request it relates to,
// and reads the answer when the client sends it back as a response. A
// session asks only when its client declared the capability at
// initialize, and only within a request its transport can push messages
// on (stdio always; HTTP when the client accepts an event stream).

// elicitSince is the first revision with elicitation.
const elicitSince = "2025-06-18"

// Push sends one message to the client, on the stream of the request
// being handled.
type Push func(msg []byte) error

type pushKey struct{}

// WithPush is ctx for a request on whose stream push sends messages.
func WithPush(ctx context.Context, push Push) context.Context {
	return context.WithValue(ctx, pushKey{}, push)
}

func pushFrom(ctx context.Context) Push {
	p, _ := ctx.Value(pushKey{}).(Push)
	return p
}

// askingBackend is a backend that can put questions to the caller while
// it serves a tool call (approvals.Asker.CallToolAsking).
type askingBackend interface {
	CallToolAsking(ctx context.Context, name string, args json.RawMessage, cc contract.CallContext,
		ask func(ctx context.Context, message string, schema map[string]any) (string, map[string]any, error)) (json.RawMessage, error)
}

// callBackend calls a tool, with a way to ask the user when the session
// and the request's transport allow it.
func (s *Server) callBackend(ctx context.Context, sess *Session, rq request, name string, args json.RawMessage) (json.RawMessage, error) {
	cc := sess.callContext(rq)
	ab, ok := s.b.(askingBackend)
	push := pushFrom(ctx)
	if !ok || push == nil || !rq.elicits() {
		return s.b.CallTool(ctx, name, args, cc)
	}
	return ab.CallToolAsking(ctx, name, args, cc, func(ctx context.Context, message string, schema map[string]any) (string, map[string]any, error) {
		return sess.elicit(ctx, push, message, schema)
	})
}

// elicits reports whether the client said it takes elicitation requests.
// A 2026-07-28 request never does: that revision has the server ask by
// answering input_required instead.
func (r request) elicits() bool {
	return r.elicitation && r.protocol >= elicitSince && !r.stateless
}

// elicit asks the client's user message, for an answer of schema, and
// waits for it. When ctx ends first the question is withdrawn with
// notifications/cancelled.
func (s *Session) elicit(ctx context.Context, push Push, message string, schema map[string]any) (string, map[string]any, error) {
	raw, err := s.request(ctx, push, "elicitation/create", map[string]any{"message": message, "requestedSchema": schema})
	if err != nil {
		return "", nil, err
	}
	var res struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", nil, fmt.Errorf("the client's answer to elicitation/create is not {action, content}: %v", err)
	}
	return res.Action, res.Content, nil
}

// answer is a response the client sent to one of the session's requests.
type answer struct {
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

// request sends a request of the server's to the client and waits for
// its response.
func (s *Session) request(ctx context.Context, push Push, method string, params any) (json.RawMessage, error) {
	s.mu.Lock()
	s.outSeq++
	id := strconv.Quote("openhuman-" + strconv.Itoa(s.outSeq))
	if s.outgoing == nil {
		s.outgoing = map[string]chan answer{}
	}
	ch := make(chan answer, 1)
	s.outgoing[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.outgoing, id)
		s.mu.Unlock()
	}()
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if err := push(msg); err != nil {
		return nil, err
	}
	select {
	case a := <-ch:
		if a.Error != nil {
			return nil, fmt.Errorf("the client answered %s with error %d: %s", method, a.Error.Code, a.Error.Message)
		}
		return a.Result, nil
	case <-ctx.Done():
		cancel, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
			"params": map[string]any{"requestId": json.RawMessage(id), "reason": "answered elsewhere, or no longer needed"}})
		_ = push(cancel)
		return nil, ctx.Err()
	}
}

// IsResponse reports whether data is a response (or a batch of them): the
// client answering the server, which must reach the request waiting for
// it at once, not be queued behind the request that asked.
func IsResponse(data []byte) bool {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(data, &items) != nil || len(items) == 0 {
			return false
		}
		for _, it := range items {
			if !IsResponse(it) {
				return false
			}
		}
		return true
	}
	var m struct {
		Method *string          `json:"method"`
		ID     json.RawMessage  `json:"id"`
		Result *json.RawMessage `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	return json.Unmarshal(data, &m) == nil && m.Method == nil && m.ID != nil && (m.Result != nil || m.Error != nil)
}

// deliver hands responses in data to the requests waiting for them and
// reports whether data was responses (then nothing is answered).
func (s *Session) deliver(data []byte) bool {
	if !IsResponse(data) {
		return false
	}
	data = bytes.TrimSpace(data)
	items := []json.RawMessage{data}
	if data[0] == '[' {
		_ = json.Unmarshal(data, &items)
	}
	for _, it := range items {
		var r struct {
			ID json.RawMessage `json:"id"`
			answer
		}
		if json.Unmarshal(it, &r) != nil {
			continue
		}
		s.mu.Lock()
		ch := s.outgoing[string(bytes.TrimSpace(r.ID))]
		s.mu.Unlock()
		if ch != nil {
			select {
			case ch <- r.answer:
			default: // answered twice: the first answer stands
			}
		}
	}
	return true
}

package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
)

// subscriptions/listen (MCP 2026-07-28) opens a stream of notifications
// on the request's own stream: over HTTP its response is an event stream,
// over stdio its notifications come between other responses. The one
// notification served is toolsListChanged: the live tools follow which
// services answer, so a service coming or going changes them. The
// subscription is acknowledged first, then each change is told as it is
// seen (the tools are looked at every ListenPoll); it ends when the client
// withdraws it (closes the stream, or notifications/cancelled on stdio),
// after ListenMax, or when the server drains (Drain), those two with the
// listen request's own completed result.

// MetaSubscriptionID is the _meta key naming the subscription a message
// belongs to: the listen request's id.
const MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// Defaults of Options.ListenPoll and Options.ListenMax.
const (
	DefaultListenPoll = 2 * time.Second
	DefaultListenMax  = 10 * time.Minute
)

// Drain ends every open subscription with its completed result, as the
// server stops: a transport calls it when it shuts down, so that no
// stream holds the shutdown up.
func (s *Server) Drain() {
	s.drainOnce.Do(func() { close(s.draining) })
}

// listenFilter is what a listen request asks for, and what the
// acknowledgment says is honoured.
type listenFilter struct {
	ToolsListChanged bool `json:"toolsListChanged,omitempty"`
}

func (s *Server) listen(ctx context.Context, sess *Session, rq request, m *jsonrpc.Message) (any, *jsonrpc.Error) {
	push := pushFrom(ctx)
	if push == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: subscriptions/listen needs a stream to send on; over HTTP, accept text/event-stream"}
	}
	var p struct {
		Notifications listenFilter `json:"notifications"`
	}
	if len(m.Params) > 0 {
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: subscriptions/listen takes {notifications: {toolsListChanged: true}}: " + err.Error()}
		}
	}
	id, tools := m.ID, p.Notifications.ToolsListChanged
	// What changes is told from the acknowledgment on: the tools are
	// looked at before it.
	var seen string
	if tools {
		seen = s.toolNames(ctx, sess, rq)
	}
	if err := push(subscriptionMessage(id, "notifications/subscriptions/acknowledged", map[string]any{"notifications": p.Notifications})); err != nil {
		return listenEnd{id: id}, nil // the stream is gone: nobody reads this
	}
	s.opts.Logger.Debug("subscription opened", "id", string(id), "tools", tools, "source", rq.source, "transport", sess.transport)
	s.watchTools(ctx, sess, rq, push, id, tools, seen)
	return listenEnd{id: id}, nil
}

// watchTools tells the subscription id of each change of the tools its
// caller is offered (seen, at first), if asked to, until the
// subscription ends.
func (s *Server) watchTools(ctx context.Context, sess *Session, rq request, push Push, id json.RawMessage, tools bool, seen string) {
	end := time.NewTimer(s.opts.ListenMax)
	defer end.Stop()
	t := time.NewTicker(s.opts.ListenPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.draining:
			return
		case <-end.C:
			return
		case <-t.C:
		}
		if !tools {
			continue
		}
		if now := s.toolNames(ctx, sess, rq); now != seen && ctx.Err() == nil {
			seen = now
			if push(subscriptionMessage(id, "notifications/tools/list_changed", map[string]any{})) != nil {
				return
			}
		}
	}
}

// toolNames names the tools tools/list would offer rq's caller now.
func (s *Server) toolNames(ctx context.Context, sess *Session, rq request) string {
	cc := sess.callContext(rq)
	var names []string
	for _, t := range s.b.Tools(ctx) {
		if cc.Token == "" || cc.Holds(t.Scope()) {
			names = append(names, t.Name)
		}
	}
	slices.Sort(names)
	return strings.Join(names, "\n")
}

// subscriptionMessage is a notification of the subscription id.
func subscriptionMessage(id json.RawMessage, method string, params map[string]any) []byte {
	params["_meta"] = map[string]any{MetaSubscriptionID: id}
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	return msg
}

// listenEnd is the result that ends a subscription the server closed:
// complete, with the subscription's id beside the server's identity.
type listenEnd struct {
	id     json.RawMessage
	server []byte
}

var _ jsonrpc.Appender = listenEnd{}

func (l listenEnd) AppendJSON(out []byte) []byte {
	out = append(out, `{"resultType":"complete","_meta":{"`+MetaSubscriptionID+`":`...)
	out = append(out, bytes.TrimSpace(l.id)...)
	out = append(out, `,"`+MetaServerInfo+`":`...)
	out = append(out, l.server...)
	return append(out, "}}"...)
}

func (l listenEnd) Size() int { return len(l.id) + len(l.server) + 128 }

// MarshalJSON serves encoders other than jsonrpc.Encode.
func (l listenEnd) MarshalJSON() ([]byte, error) { return l.AppendJSON(nil), nil }

package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/approvals"
	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
)

// Tools: listing them and calling them, the same for every revision.

type toolEntry struct {
	Name         string               `json:"name"`
	Title        string               `json:"title,omitempty"`
	Description  string               `json:"description"`
	InputSchema  *contract.Schema     `json:"inputSchema"`
	OutputSchema *contract.Schema     `json:"outputSchema,omitempty"`
	Annotations  contract.Annotations `json:"annotations"`
}

// listTools lists the live tools the session's caller may call, each with
// the schema of its result for sessions that get results as
// structuredContent. A session opened with a bearer token is offered only
// the tools its scopes allow: a model offered memory.learn on a read-only
// token tries it and meets a refusal it takes for its own mistake. A
// session without one (stdio: the local user) is offered every tool.
func (s *Server) listTools(ctx context.Context, sess *Session, rq request) any {
	tools := s.b.Tools(ctx)
	structured := rq.structured()
	cc := sess.callContext(rq)
	out := make([]toolEntry, 0, len(tools))
	for _, t := range tools {
		if cc.Token != "" && !cc.Holds(t.Scope()) {
			continue
		}
		e := toolEntry{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.Input, Annotations: t.Annotations}
		if structured {
			e.OutputSchema = t.Output
		}
		out = append(out, e)
	}
	return map[string]any{"tools": out}
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type toolResult struct {
	Content           []textContent   `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

func (s *Server) callTool(ctx context.Context, sess *Session, rq request, call toolCall) (any, *jsonrpc.Error) {
	name, args := call.name, call.args
	if !call.ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: tools/call takes {name, arguments}",
			Data: map[string]any{"code": string(contract.CodeInvalidRequest), "detail": "tools/call params must be an object with a string `name`"}}
	}
	var raw json.RawMessage
	var err error
	if rq.stateless {
		retry, perr := readRetry(call.params)
		if perr != nil {
			return nil, perr
		}
		var q *approvals.Question
		if raw, q, err = s.callRoundTrip(ctx, sess, rq, call, retry); q != nil {
			return inputRequired{q: q}, nil
		}
	} else {
		raw, err = s.callBackend(ctx, sess, rq, name, args)
	}
	if err != nil {
		e := contract.AsError(err)
		if toolErrors[e.Code] == asInvalidParams {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: e.Message, Data: jsonrpc.ErrorData(e)}
		}
		s.opts.Logger.Debug("tool failed", "tool", name, "code", e.Code, "err", e.Message)
		return toolResult{Content: []textContent{{Type: "text", Text: fmt.Sprintf("%s failed: %s", name, e.Message)}}, IsError: true}, nil
	}
	// Every tool's result is an object conforming to its outputSchema
	// (contract.Tool.Output); the text content is the same JSON, indented.
	return toolSuccess{raw: raw, structured: rq.structured() && bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{"))}, nil
}

// toolSuccess is a tool's result as MCP sends it: the text content is the
// result's JSON indented, and structuredContent the result as it came,
// when the session takes it. It writes itself into the response
// (jsonrpc.Appender) in one pass over the result for the text and a copy
// for structuredContent: the bus checked the result already, and
// encoding/json would check, indent, quote and copy it again. The bytes are
// those toolResult encodes to when the result is compact.
type toolSuccess struct {
	raw        json.RawMessage // valid JSON: the backend's result
	structured bool
}

var _ jsonrpc.Appender = toolSuccess{}

func (t toolSuccess) AppendJSON(out []byte) []byte {
	out = append(out, `{"content":[{"type":"text","text":`...)
	out = contract.AppendIndentedString(out, t.raw)
	out = append(out, `}]`...)
	if t.structured {
		out = append(out, `,"structuredContent":`...)
		out = append(out, t.raw...)
	}
	return append(out, '}')
}

// Size allows for indentation and escaped quotes in the text, and the copy.
func (t toolSuccess) Size() int { return 3*len(t.raw) + 64 }

// MarshalJSON serves encoders other than jsonrpc.Encode.
func (t toolSuccess) MarshalJSON() ([]byte, error) { return t.AppendJSON(nil), nil }

// toolCallParams takes tools/call's params apart as json.Unmarshal into
// {Name *string; Arguments json.RawMessage} would (keys matched without
// regard to case, the last of a name winning, a null name as none), in
// one pass over the members and without decoding the arguments. ok is
// false when params is not an object with a string name (absent or
// null params have none).
func toolCallParams(params json.RawMessage) (name string, args json.RawMessage, ok bool) {
	var rawName json.RawMessage
	object := contract.EachMember(params, func(key, value []byte) {
		k := jsonrpc.MemberName(key)
		switch {
		case strings.EqualFold(k, "name"):
			rawName = value
		case strings.EqualFold(k, "arguments"):
			args = value
		}
	})
	if !object || rawName == nil || rawName[0] != '"' {
		return "", nil, false
	}
	if name = jsonrpc.PlainString(rawName); name == "" && len(rawName) > 2 {
		if json.Unmarshal(rawName, &name) != nil {
			return "", nil, false
		}
	}
	return name, args, true
}

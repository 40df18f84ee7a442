package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/approvals"
	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
)

// Multi Round-Trip Requests (MCP 2026-07-28): instead of asking the client
// with elicitation/create in the middle of a request, the server answers
// resultType "input_required" with the questions (inputRequests) and a
// requestState, and the client sends the same tools/call again with its
// answers (inputResponses) and that state. A request is asked only when its
// _meta declares the elicitation capability.

// roundTripBackend is a backend that asks by input_required
// (approvals.Asker.CallToolRoundTrip).
type roundTripBackend interface {
	CallToolRoundTrip(ctx context.Context, name string, args json.RawMessage, cc contract.CallContext, r approvals.Retry) (json.RawMessage, *approvals.Question, error)
}

// readRetry reads what a retry of tools/call carries, nil for a first
// call. One scan for the keys first: most calls are first calls.
func readRetry(params json.RawMessage) (*approvals.Retry, *jsonrpc.Error) {
	if !bytes.Contains(params, []byte(`"requestState"`)) && !bytes.Contains(params, []byte(`"inputResponses"`)) {
		return nil, nil
	}
	var p struct {
		RequestState   *string                    `json:"requestState"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: requestState must be a string and inputResponses an object of results by key: " + err.Error(),
			Data: map[string]any{"code": string(contract.CodeInvalidRequest)}}
	}
	r := &approvals.Retry{Responses: p.InputResponses}
	if p.RequestState != nil {
		r.State = *p.RequestState
	}
	return r, nil
}

// callRoundTrip calls a tool for a 2026-07-28 request: its result, or,
// when the request takes elicitation, the question to answer
// input_required with. retry is what the request carries back (readRetry).
func (s *Server) callRoundTrip(ctx context.Context, sess *Session, rq request, call toolCall, retry *approvals.Retry) (json.RawMessage, *approvals.Question, error) {
	rb, ok := s.b.(roundTripBackend)
	if !ok || !rq.elicitation {
		raw, err := s.b.CallTool(ctx, call.name, call.args, sess.callContext(rq))
		return raw, nil, err
	}
	if retry == nil {
		retry = &approvals.Retry{}
	}
	return rb.CallToolRoundTrip(ctx, call.name, call.args, sess.callContext(rq), *retry)
}

// inputRequired is a 2026-07-28 result that asks: one elicitation in form
// mode, and the state the retry sends back.
type inputRequired struct {
	q      *approvals.Question
	server []byte // serverInfo, set by complete
}

var _ jsonrpc.Appender = inputRequired{}

func (r inputRequired) AppendJSON(out []byte) []byte {
	req, _ := json.Marshal(map[string]any{r.q.Key: map[string]any{"method": "elicitation/create",
		"params": map[string]any{"mode": "form", "message": r.q.Message, "requestedSchema": r.q.Schema}}})
	out = append(out, `{"resultType":"input_required","inputRequests":`...)
	out = append(out, req...)
	out = append(out, `,"requestState":`...)
	out = strconv.AppendQuote(out, r.q.State)
	out = append(out, `,"_meta":{"`+MetaServerInfo+`":`...)
	out = append(out, r.server...)
	return append(out, "}}"...)
}

func (r inputRequired) Size() int { return len(r.q.Message) + len(r.q.State) + len(r.server) + 1024 }

// MarshalJSON serves encoders other than jsonrpc.Encode.
func (r inputRequired) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil), nil }

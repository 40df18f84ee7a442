package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
)

// Resources: listing and reading them.

func (s *Server) listResources(ctx context.Context, sess *Session, rq request) (any, *jsonrpc.Error) {
	list, err := s.b.Resources(ctx, sess.callContext(rq))
	if err != nil {
		return nil, resourceError(err, rq)
	}
	return map[string]any{"resources": list}, nil
}

func (s *Server) readResource(ctx context.Context, sess *Session, rq request, params json.RawMessage) (any, *jsonrpc.Error) {
	var p struct {
		URI *string `json:"uri"`
	}
	if err := json.Unmarshal(orEmpty(params), &p); err != nil || p.URI == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: resources/read takes {uri}; resources/list names the URIs"}
	}
	res, err := s.b.ReadResource(ctx, *p.URI, sess.callContext(rq))
	if err != nil {
		return nil, resourceError(err, rq)
	}
	return res, nil
}

func resourceError(err error, rq request) *jsonrpc.Error {
	e := contract.AsError(err)
	code, ok := resourceErrors[e.Code]
	if !ok {
		code = jsonrpc.CodeInternalError
	}
	if code == codeResourceNotFound && rq.stateless {
		code = jsonrpc.CodeInvalidParams // 2026-07-28 retired -32002 for it
	}
	return &jsonrpc.Error{Code: code, Message: e.Message, Data: jsonrpc.ErrorData(e)}
}

func orEmpty(params json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(params)) == 0 || bytes.Equal(bytes.TrimSpace(params), []byte("null")) {
		return json.RawMessage("{}")
	}
	return params
}

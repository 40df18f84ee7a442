package mcpserver

import (
	"bytes"
	"encoding/json"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// JSON-RPC 2.0 and MCP error codes.
const (
	codeParseError       = -32700
	codeInvalidRequest   = -32600
	codeMethodNotFound   = -32601
	codeInvalidParams    = -32602
	codeInternalError    = -32603
	codeResourceNotFound = -32002
)

type rpcError struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data,omitempty"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

var nullID = json.RawMessage("null")

func errorResponse(id json.RawMessage, code int, msg string, data map[string]any) *response {
	if id == nil {
		id = nullID
	}
	return &response{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: code, Message: msg, Data: data}}
}

func resultResponse(id json.RawMessage, result any) *response {
	return &response{JSONRPC: "2.0", ID: id, Result: result}
}

// message is one decoded JSON-RPC message. ID is nil when the key is absent
// (a notification) and "null" when it was sent as null.
type message struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
}

// decodeMessage checks the JSON-RPC envelope. It returns a response to send
// instead when the message is invalid, and (nil, nil) for messages that need
// no answer (responses from the client: this server sends no requests).
func decodeMessage(raw json.RawMessage) (*message, *response) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, errorResponse(nil, codeInvalidRequest, "Invalid Request: a JSON-RPC message must be a JSON object", nil)
	}
	m := &message{ID: fields["id"], Params: fields["params"]}
	if m.ID != nil && !validID(m.ID) {
		return nil, errorResponse(nil, codeInvalidRequest, "Invalid Request: id must be a string or a number", nil)
	}
	var version string
	if err := json.Unmarshal(fields["jsonrpc"], &version); err != nil || version != "2.0" {
		return nil, errorResponse(m.ID, codeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`, nil)
	}
	rawMethod, hasMethod := fields["method"]
	if !hasMethod {
		if _, isResult := fields["result"]; isResult {
			return nil, nil
		}
		if _, isError := fields["error"]; isError {
			return nil, nil
		}
		return nil, errorResponse(m.ID, codeInvalidRequest, `Invalid Request: "method" is missing`, nil)
	}
	if err := json.Unmarshal(rawMethod, &m.Method); err != nil || m.Method == "" {
		return nil, errorResponse(m.ID, codeInvalidRequest, `Invalid Request: "method" must be a non-empty string`, nil)
	}
	if bytes.Equal(bytes.TrimSpace(m.ID), nullID) {
		return nil, errorResponse(nil, codeInvalidRequest, "Invalid Request: id must not be null", nil)
	}
	return m, nil
}

func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return false
	}
	switch id[0] {
	case '"':
		var s string
		return json.Unmarshal(id, &s) == nil
	case 'n':
		return bytes.Equal(id, nullID) // reported separately, with a clearer message
	default:
		var n json.Number
		return json.Unmarshal(id, &n) == nil
	}
}

// toolOutcome is how a failed tool call is reported over MCP.
type toolOutcome int

const (
	// asInvalidParams: the caller must change the call (JSON-RPC -32602).
	asInvalidParams toolOutcome = iota + 1
	// asToolError: the tool ran and failed: a result with isError, so the
	// model sees the message and can react.
	asToolError
)

// toolErrors is the MCP mapping of every contract code, the only one.
var toolErrors = map[contract.Code]toolOutcome{
	contract.CodeInvalidRequest: asInvalidParams,
	contract.CodeDenied:         asInvalidParams,
	contract.CodeNotFound:       asToolError,
	contract.CodeMemoryOff:      asToolError,
	contract.CodeUnsupported:    asToolError,
	contract.CodeUnavailable:    asToolError,
	contract.CodeRateLimited:    asToolError,
	contract.CodeNoModel:        asToolError,
	contract.CodeEngine:         asToolError,
	contract.CodeInternal:       asToolError,
}

// resourceErrors maps codes for resources/read; unlisted codes are -32603.
var resourceErrors = map[contract.Code]int{
	contract.CodeNotFound:       codeResourceNotFound,
	contract.CodeInvalidRequest: codeInvalidParams,
}

// errorData is the data member of an error built from a contract error.
func errorData(e *contract.Error) map[string]any {
	data := map[string]any{"code": string(e.Code), "detail": e.Message}
	for k, v := range e.Data {
		data[k] = v
	}
	return data
}

// Package jsonrpc is the JSON-RPC 2.0 envelope shared by the gateway's
// transports (MCP over stdio and HTTP, and the HTTP RPC endpoint): decoding
// and checking messages, batches, and encoding responses. What a method
// means is up to each transport.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Standard JSON-RPC 2.0 error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Error is a JSON-RPC error object.
type Error struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data,omitempty"`
}

// Response is a JSON-RPC response: exactly one of Result and Error is set.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Message is a decoded request or notification. ID is nil when the key was
// absent: a notification.
type Message struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
}

// Notification reports whether no response is due.
func (m *Message) Notification() bool { return m.ID == nil }

var null = json.RawMessage("null")

// ErrorResponse builds an error response; a nil id is sent as null.
func ErrorResponse(id json.RawMessage, code int, msg string, data map[string]any) *Response {
	if id == nil {
		id = null
	}
	return &Response{JSONRPC: "2.0", ID: id, Error: &Error{Code: code, Message: msg, Data: data}}
}

// ResultResponse builds a success response.
func ResultResponse(id json.RawMessage, result any) *Response {
	return &Response{JSONRPC: "2.0", ID: id, Result: result}
}

// MethodNotFound is the error for a method nobody serves.
func MethodNotFound(method string) *Error {
	method = clip(method)
	return &Error{Code: CodeMethodNotFound, Message: "Method not found: " + method, Data: map[string]any{"method": method}}
}

// ErrorData is the data member for an error built from a contract error:
// its code, its message and its own data (such as the field at fault).
func ErrorData(e *contract.Error) map[string]any {
	data := map[string]any{"code": string(e.Code), "detail": e.Message}
	for k, v := range e.Data {
		data[k] = v
	}
	return data
}

// Decode checks one message's envelope. It returns a response to send
// instead when the message is invalid, and (nil, nil) for messages that need
// no answer (responses sent by the peer).
func Decode(raw json.RawMessage) (*Message, *Response) {
	m := &Message{}
	var version, rawMethod json.RawMessage
	var hasMethod, isReply bool
	object := contract.EachMember(raw, func(key, value []byte) {
		// A later member of the same name wins, as in a decoded map.
		switch MemberName(key) {
		case "id":
			m.ID = value
		case "params":
			m.Params = value
		case "jsonrpc":
			version = value
		case "method":
			rawMethod, hasMethod = value, true
		case "result", "error":
			isReply = true
		}
	})
	if !object {
		return nil, ErrorResponse(nil, CodeInvalidRequest, "Invalid Request: a JSON-RPC message must be a JSON object", nil)
	}
	if m.ID != nil && !validID(m.ID) {
		return nil, ErrorResponse(nil, CodeInvalidRequest, "Invalid Request: id must be a string or a number", nil)
	}
	if !bytes.Equal(version, []byte(`"2.0"`)) {
		var v string
		if err := json.Unmarshal(version, &v); err != nil || v != "2.0" {
			return nil, ErrorResponse(m.ID, CodeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`, nil)
		}
	}
	if !hasMethod {
		if isReply {
			return nil, nil
		}
		return nil, ErrorResponse(m.ID, CodeInvalidRequest, `Invalid Request: "method" is missing`, nil)
	}
	if m.Method = PlainString(rawMethod); m.Method == "" {
		if err := json.Unmarshal(rawMethod, &m.Method); err != nil || m.Method == "" {
			return nil, ErrorResponse(m.ID, CodeInvalidRequest, `Invalid Request: "method" must be a non-empty string`, nil)
		}
	}
	if bytes.Equal(bytes.TrimSpace(m.ID), null) {
		return nil, ErrorResponse(nil, CodeInvalidRequest, "Invalid Request: id must not be null", nil)
	}
	return m, nil
}

// MemberName is an object key's text: sliced out of its quotes when it
// holds no escape, decoded otherwise.
func MemberName(key []byte) string {
	if s := PlainString(key); s != "" {
		return s
	}
	var s string
	_ = json.Unmarshal(key, &s)
	return s
}

// PlainString is the text of a JSON string without escapes, in valid
// UTF-8 (a decoder would replace invalid bytes), "" for any other value.
func PlainString(v []byte) string {
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 || !utf8.Valid(v) {
		return ""
	}
	return string(v[1 : len(v)-1])
}

func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return false
	}
	// A JSON value that starts as a string or a number is one; the
	// project's scanner tells so without encoding/json, whose Unmarshal
	// into a json.Number cost a tools/call more than the rest of its
	// line's decoding.
	switch c := id[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return contract.ValidJSON(id)
	case c == 'n':
		return bytes.Equal(id, null) // reported separately, with a clearer message
	}
	return false
}

// Handle answers data, a single message or a batch, calling one for each
// valid message. It returns the bytes to send (compact JSON, no newline), or
// nil when nothing is due. maxBatch > 0 refuses larger batches whole.
func Handle(data []byte, maxBatch int, one func(*Message) *Response) []byte {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		// Answered, not ignored: a client that sent nothing by mistake
		// (a lost body, a form post) must learn that nothing ran.
		return Encode(ErrorResponse(nil, CodeInvalidRequest, "Invalid Request: the message is empty; send a JSON-RPC request object, or a batch array of them", nil))
	}
	if data[0] != '[' {
		if !contract.ValidJSON(data) {
			return Encode(parseError(data))
		}
		if resp := answer(data, one); resp != nil {
			return Encode(resp)
		}
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		return Encode(parseError(data))
	}
	if len(items) == 0 {
		return Encode(ErrorResponse(nil, CodeInvalidRequest, "Invalid Request: empty batch", nil))
	}
	if maxBatch > 0 && len(items) > maxBatch {
		return Encode(ErrorResponse(nil, CodeInvalidRequest,
			fmt.Sprintf("Invalid Request: a batch of %d requests is over the limit of %d; split it", len(items), maxBatch), nil))
	}
	// Answers are written as they come, and once they pass
	// MaxBatchAnswerBytes the requests left are refused, not run: a batch
	// of reads that each return a lot must not hold their sum in memory.
	out := []byte{'['}
	for _, item := range items {
		var resp *Response
		if len(out) > MaxBatchAnswerBytes {
			if m, bad := Decode(item); bad != nil {
				resp = bad
			} else if !m.Notification() {
				resp = ErrorResponse(m.ID, CodeInvalidRequest, fmt.Sprintf(
					"Invalid Request: not run: the batch's answers before it are over %d MiB; send it again in a batch of its own", MaxBatchAnswerBytes>>20), nil)
			}
		} else {
			resp = answer(item, one)
		}
		if resp == nil {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, Encode(resp)...)
	}
	if len(out) == 1 {
		return nil
	}
	return append(out, ']')
}

// MaxBatch bounds the requests of one batch; a larger batch is refused
// whole. MaxBatchAnswerBytes bounds the answers of one: the requests after
// it is passed are refused, each with its own error.
const (
	MaxBatch            = 100
	MaxBatchAnswerBytes = 16 << 20
)

// parseError says why data, which is not one JSON value, was refused.
func parseError(data []byte) *Response {
	if contract.TooDeep(data) {
		return ErrorResponse(nil, CodeParseError, fmt.Sprintf("Parse error: the JSON is nested too deep (limit %d levels of arrays and objects); send it flatter", contract.MaxJSONDepth), nil)
	}
	return ErrorResponse(nil, CodeParseError, "Parse error: the message is not valid JSON", nil)
}

func answer(raw json.RawMessage, one func(*Message) *Response) *Response {
	m, bad := Decode(raw)
	if m == nil {
		return bad
	}
	return one(m)
}

// Appender is a result that writes itself: compact, valid JSON appended to
// dst. Size is about how many bytes it appends, so that the response is
// framed in one buffer of the right size.
type Appender interface {
	AppendJSON(dst []byte) []byte
	Size() int
}

// Encode writes v as compact JSON, or an internal error response if it cannot.
// A response whose result is already JSON, or writes itself (Appender), is
// written around it, not re-encoded: results can be large. There is room
// left for a newline after it.
func Encode(v any) []byte { return AppendEncode(nil, v) }

// AppendEncode is Encode appending to dst: a stdio session frames every
// response in one buffer, used again once the line is written.
func AppendEncode(dst []byte, v any) []byte {
	if r, ok := v.(*Response); ok && r.Error == nil {
		raw, isRaw := r.Result.(json.RawMessage)
		a, isAppender := r.Result.(Appender)
		if isRaw && len(raw) > 0 || isAppender {
			id := r.ID
			if id == nil {
				id = null
			}
			size := len(raw)
			if isAppender {
				size = a.Size()
			}
			out := slices.Grow(dst, size+len(id)+32)
			out = append(out, `{"jsonrpc":"2.0","id":`...)
			out = append(out, id...)
			out = append(out, `,"result":`...)
			if isAppender {
				out = a.AppendJSON(out)
			} else {
				out = append(out, raw...)
			}
			return append(out, '}')
		}
	}
	b, err := contract.AppendMarshal(dst, v)
	if err != nil {
		b, _ = contract.AppendMarshal(dst, ErrorResponse(nil, CodeInternalError, "Internal error: the response could not be encoded", nil))
	}
	return b
}

func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}

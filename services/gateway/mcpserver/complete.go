package mcpserver

import (
	"strconv"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
)

// cacheHint is 2026-07-28's ttlMs and cacheScope: how long a client (or,
// when public, anyone between) may reuse a result.
type cacheHint struct {
	ttlMs int
	scope string
}

// cacheHints are the results that carry one, by method.
var cacheHints = map[string]cacheHint{
	// The live tools follow which services answer: a list kept longer could
	// offer a tool whose service has gone. A token's list is its own
	// (filtered by its scopes), see complete.
	"server/discover": {ttlMs: 30_000, scope: "public"},
	"tools/list":      {ttlMs: 30_000, scope: "public"},
	// Memory changes with every write, and each caller sees its workspaces.
	"resources/list": {ttlMs: 0, scope: "private"},
	"resources/read": {ttlMs: 0, scope: "private"},
	// There are none, ever.
	"resources/templates/list": {ttlMs: 3_600_000, scope: "public"},
}

// complete turns a result into a 2026-07-28 one: resultType "complete", a
// cache hint where the method has one, and the server's identity in _meta.
func (s *Server) complete(sess *Session, rq request, method string, result any) (any, *jsonrpc.Error) {
	switch r := result.(type) {
	case inputRequired:
		r.server = s.serverInfo
		return r, nil
	case listenEnd:
		r.server = s.serverInfo
		return r, nil
	}
	c := completeResult{server: s.serverInfo}
	if a, ok := result.(jsonrpc.Appender); ok {
		c.inner = a
	} else {
		raw, err := contract.AppendMarshal(nil, result)
		if err != nil || len(raw) < 2 || raw[0] != '{' {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error: the result of " + method + " could not be encoded"}
		}
		c.raw = raw
	}
	if hint, ok := cacheHints[method]; ok {
		if method == "tools/list" && sess.callContext(rq).Token != "" {
			hint.scope = "private"
		}
		c.hint = &hint
	}
	return c, nil
}

// completeResult writes a result with the members 2026-07-28 adds after
// its own: a tool's result writes itself (toolSuccess) and is not encoded
// twice.
type completeResult struct {
	inner  jsonrpc.Appender // the result, when it writes itself
	raw    []byte           // else the result encoded: an object
	hint   *cacheHint
	server []byte // {"name":…,"version":…}
}

var _ jsonrpc.Appender = completeResult{}

func (c completeResult) AppendJSON(out []byte) []byte {
	start := len(out)
	if c.inner != nil {
		out = c.inner.AppendJSON(out)
	} else {
		out = append(out, c.raw...)
	}
	out = out[:len(out)-1] // the closing brace, put back below
	if len(out) > start+1 {
		out = append(out, ',')
	}
	out = append(out, `"resultType":"complete"`...)
	if c.hint != nil {
		out = append(out, `,"ttlMs":`...)
		out = strconv.AppendInt(out, int64(c.hint.ttlMs), 10)
		out = append(out, `,"cacheScope":"`...)
		out = append(out, c.hint.scope...)
		out = append(out, '"')
	}
	out = append(out, `,"_meta":{"`+MetaServerInfo+`":`...)
	out = append(out, c.server...)
	return append(out, "}}"...)
}

func (c completeResult) Size() int {
	n := len(c.raw) + len(c.server) + 160
	if c.inner != nil {
		n += c.inner.Size()
	}
	return n
}

// MarshalJSON serves encoders other than jsonrpc.Encode.
func (c completeResult) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil), nil }

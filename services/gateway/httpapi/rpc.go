package httpapi

import (
	"net/http"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
	"github.com/openhuman-go/openhuman-go/services/gateway/registry"
)

// rpcErrors is the JSON-RPC mapping of every contract code for /rpc, the
// only one. data.code always carries the contract code itself.
var rpcErrors = map[contract.Code]int{
	contract.CodeInvalidRequest: jsonrpc.CodeInvalidParams,
	contract.CodeNotFound:       -32004,
	contract.CodeDenied:         -32003,
	contract.CodeRateLimited:    -32029,
	contract.CodeMemoryOff:      -32010,
	contract.CodeUnsupported:    -32011,
	contract.CodeUnavailable:    -32012,
	contract.CodeNoModel:        -32013,
	contract.CodeEngine:         -32014,
	contract.CodeInternal:       jsonrpc.CodeInternalError,
}

// rpc serves POST /rpc: JSON-RPC 2.0, single or batched, with every tool's
// backing method and the registry methods. Calls carry provenance
// http:<token name>, or "rpc" when the edge has no tokens.
func (s *Server) rpc(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	cc := rpcCallContext(r.Context())
	out := jsonrpc.Handle(body, jsonrpc.MaxBatch, func(m *jsonrpc.Message) *jsonrpc.Response {
		if !registry.IsRPCMethod(m.Method) {
			if m.Notification() {
				return nil
			}
			return &jsonrpc.Response{JSONRPC: "2.0", ID: m.ID, Error: methodNotFound(m.Method)}
		}
		result, err := s.gw.CallRPC(r.Context(), m.Method, m.Params, cc)
		if m.Notification() {
			return nil
		}
		if err != nil {
			e := contract.AsError(err)
			return jsonrpc.ErrorResponse(m.ID, rpcErrors[e.Code], e.Message, jsonrpc.ErrorData(e))
		}
		return jsonrpc.ResultResponse(m.ID, result)
	})
	if out == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeEncoded(w, out)
}

// methodNotFound answers a method /rpc does not serve with the names of
// those nearest to it, in the message and as data.suggestions.
func methodNotFound(method string) *jsonrpc.Error {
	e := jsonrpc.MethodNotFound(method)
	near := registry.SuggestRPCMethods(method)
	e.Message += "; did you mean " + strings.Join(near, ", ") + "? (docs/tools.md lists every method)"
	e.Data["suggestions"] = near
	return e
}

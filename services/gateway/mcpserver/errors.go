package mcpserver

import (
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
)

// codeResourceNotFound is MCP's error for resources/read of an unknown URI.
const codeResourceNotFound = -32002

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
	contract.CodeInvalidRequest: jsonrpc.CodeInvalidParams,
	contract.CodeDenied:         jsonrpc.CodeInvalidParams, // as for tools: a token without scope read
}

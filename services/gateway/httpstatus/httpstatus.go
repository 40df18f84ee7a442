// Package httpstatus maps contract error codes to HTTP statuses: the one
// table every HTTP surface of the gateway answers by (the /rpc edge's own
// refusals, the console's pages), so a code means the same status
// wherever a person or a client meets it.
package httpstatus

import (
	"net/http"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

var statuses = map[contract.Code]int{
	contract.CodeInvalidRequest: http.StatusBadRequest,
	contract.CodeNotFound:       http.StatusNotFound,
	contract.CodeDenied:         http.StatusForbidden,
	contract.CodeRateLimited:    http.StatusTooManyRequests,
	contract.CodeMemoryOff:      http.StatusServiceUnavailable,
	contract.CodeUnsupported:    http.StatusNotImplemented,
	contract.CodeUnavailable:    http.StatusServiceUnavailable,
	contract.CodeNoModel:        http.StatusServiceUnavailable,
	contract.CodeEngine:         http.StatusInternalServerError,
	contract.CodeInternal:       http.StatusInternalServerError,
}

// Of is the HTTP status of code; a code the table does not know is a
// server error, as anything that is not a contract error is.
func Of(code contract.Code) int {
	if s, ok := statuses[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

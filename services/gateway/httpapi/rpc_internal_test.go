package httpapi

import (
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
)

func TestRPCErrorTable(t *testing.T) {
	seen := map[int]contract.Code{}
	for _, code := range contract.Codes() {
		n, ok := rpcErrors[code]
		if !ok {
			t.Errorf("%s has no JSON-RPC mapping", code)
			continue
		}
		if other, dup := seen[n]; dup {
			t.Errorf("%s and %s both map to %d", code, other, n)
		}
		seen[n] = code
		if n == 0 {
			t.Errorf("%s maps to 0", code)
		}
	}
	if rpcErrors[contract.CodeInvalidRequest] != jsonrpc.CodeInvalidParams {
		t.Error("bad arguments must be -32602")
	}
}

package httpstatus

import (
	"net/http"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

func TestEveryCodeMaps(t *testing.T) {
	for _, code := range contract.Codes() {
		s, ok := statuses[code]
		if !ok {
			t.Errorf("%s has no HTTP status", code)
			continue
		}
		if s < 400 || s > 599 || http.StatusText(s) == "" {
			t.Errorf("%s maps to %d, which is not an error status", code, s)
		}
	}
	if len(statuses) != len(contract.Codes()) {
		t.Errorf("the table has %d codes, the contract %d", len(statuses), len(contract.Codes()))
	}
}

func TestCallersFaultsAreClientErrors(t *testing.T) {
	for code, want := range map[contract.Code]int{
		contract.CodeInvalidRequest: http.StatusBadRequest,
		contract.CodeDenied:         http.StatusForbidden,
		contract.CodeRateLimited:    http.StatusTooManyRequests,
		contract.CodeInternal:       http.StatusInternalServerError,
		"NO_SUCH_CODE":              http.StatusInternalServerError,
	} {
		if got := Of(code); got != want {
			t.Errorf("Of(%s) = %d, want %d", code, got, want)
		}
	}
}

// Package audittest holds the checks every audit backend must pass, so
// that each adapter's tests prove the same behaviour of audit.Log.
package audittest

import (
	"context"
	"fmt"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
)

// Row is the i-th of a run of rows; a failed one carries a refusal, as a
// policy denial does, and no resulting id. Even rows came with the bearer
// token "ci".
func Row(i int, ok bool) audit.Row {
	r := audit.Row{TimestampMS: int64(1000 + i), Client: "mcp:test", ToolName: "memory.learn",
		ArgsSummary: map[string]any{"text_length": i, "kind": "fact"}, ResultingID: fmt.Sprintf("id%d", i), Success: ok}
	if i%2 == 0 {
		r.Token = "ci"
	}
	if !ok {
		r.ErrorMessage = "Security policy: read-only mode, cannot perform 'memory.learn'"
		r.ResultingID = ""
	}
	return r
}

// Check records ten rows in l, a third of them failures, and reads them
// back newest first, all and failures only.
func Check(t *testing.T, l audit.Log) {
	t.Helper()
	ctx := context.Background()
	for i := range 10 {
		if err := l.Record(ctx, Row(i, i%3 != 0)); err != nil {
			t.Fatal(err)
		}
	}
	recent, err := l.Recent(ctx, 3, false)
	if err != nil || len(recent) != 3 || recent[0].TimestampMS != 1009 || recent[1].ResultingID != "id8" || recent[1].ArgsSummary["text_length"] != float64(8) || recent[1].Client != "mcp:test" || recent[1].Token != "ci" || recent[0].Token != "" {
		t.Fatalf("recent %+v %v", recent, err)
	}
	failures, err := l.Recent(ctx, 10, true)
	if err != nil || len(failures) != 4 || failures[0].TimestampMS != 1009 || failures[3].TimestampMS != 1000 || failures[0].ErrorMessage == "" {
		t.Fatalf("failures %+v %v", failures, err)
	}
}

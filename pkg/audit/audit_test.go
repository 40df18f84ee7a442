package audit_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
)

func TestSummarizeNeverHoldsContent(t *testing.T) {
	secret := "my bank PIN is 4321"
	for tool, args := range map[string]map[string]any{
		"memory.learn":       {"text": secret, "kind": "preference"},
		"memory.forget":      {"ids": []any{"a", "b"}},
		"agent.run_subagent": {"agent_id": "note_taker", "prompt": secret},
		"other":              {"text": secret},
	} {
		s := fmt.Sprint(audit.Summarize(tool, args))
		if strings.Contains(s, "4321") {
			t.Errorf("%s summary holds content: %s", tool, s)
		}
	}
	if got := audit.Summarize("memory.learn", map[string]any{"text": "héllo"}); got["text_length"] != 5 || got["kind"] != "fact" {
		t.Errorf("learn summary %v", got)
	}
	if got := audit.Summarize("memory.forget", map[string]any{"ids": []any{"a", "b"}}); got["id_count"] != 2 {
		t.Errorf("forget summary %v", got)
	}
}

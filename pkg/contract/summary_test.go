package contract

import (
	"fmt"
	"strings"
	"testing"
)

func TestSummarizeNeverHoldsContent(t *testing.T) {
	secret := "my bank PIN is 4321"
	other := Tool{Name: "other", Input: Object("", nil, map[string]*Schema{"text": String("")})}
	for _, tc := range []struct {
		tool Tool
		args map[string]any
	}{
		{MemoryLearn, map[string]any{"text": secret, "kind": "preference"}},
		{MemoryForget, map[string]any{"ids": []any{"a", "b"}}},
		{AgentRunSubagent, map[string]any{"agent_id": "note_taker", "prompt": secret}},
		{other, map[string]any{"text": secret}},
	} {
		s := fmt.Sprint(tc.tool.Summarize(tc.args))
		if strings.Contains(s, "4321") {
			t.Errorf("%s summary holds content: %s", tc.tool.Name, s)
		}
	}
	if got := MemoryLearn.Summarize(map[string]any{"text": "héllo"}); got["text_length"] != 5 || got["kind"] != "fact" || len(got) != 2 {
		t.Errorf("learn summary %v", got)
	}
	if got := MemoryForget.Summarize(map[string]any{"ids": []any{"a", "b"}}); got["id_count"] != 2 {
		t.Errorf("forget summary %v", got)
	}
	if got := AgentRunSubagent.Summarize(map[string]any{"agent_id": "librarian", "prompt": "abc"}); got["agent_id"] != "librarian" || got["prompt_length"] != 3 {
		t.Errorf("run_subagent summary %v", got)
	}
	if got := fmt.Sprint(other.Summarize(map[string]any{"text": secret, "b": 1})); got != "map[arguments:[b text]]" {
		t.Errorf("summary of a tool without Summary fields: %s", got)
	}
}

// TestActingToolsSayWhatIsAudited: every tool that acts is audited, so
// each says what of its arguments the audit keeps.
func TestActingToolsSayWhatIsAudited(t *testing.T) {
	for _, tool := range Tools() {
		if !tool.Acts {
			continue
		}
		if len(tool.Summary) == 0 {
			t.Errorf("%s acts but has no Summary fields", tool.Name)
		}
		for _, f := range tool.Summary {
			if _, ok := tool.Input.Properties[f.Arg]; !ok {
				t.Errorf("%s: Summary names %q, which is not one of its arguments", tool.Name, f.Arg)
			}
		}
	}
}

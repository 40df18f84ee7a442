package registry_test

import (
	"os"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/registry"
)

func TestSuggestRPCMethods(t *testing.T) {
	for _, tc := range []struct{ asked, first string }{
		{"openhuman.web_search", "openhuman.tools_web_search"},  // the tool's name under the prefix
		{"memory.recall", "openhuman.memory_recall"},            // the MCP tool's name
		{"memory.search", "openhuman.memory_tree_search"},       // a v1 tool's
		{"openhuman.memory_recal", "openhuman.memory_recall"},   // a letter missing
		{"openhuman.approvals_list", "openhuman.approval_list"}, // one too many
		{"OPENHUMAN.MEMORY_FETCH", "openhuman.memory_fetch"},
		{"tool_registry/list", "openhuman.tool_registry_list"},
	} {
		got := registry.SuggestRPCMethods(tc.asked)
		if len(got) != 3 || got[0] != tc.first {
			t.Errorf("%s: suggested %q, want three starting with %s", tc.asked, got, tc.first)
		}
	}
	// Then methods that share a word with it, before those merely as
	// short (memory_fetch is as near to web_search in typing mistakes).
	got := registry.SuggestRPCMethods("openhuman.web_search")
	for _, m := range got {
		if !strings.Contains(m, "web") && !strings.Contains(m, "search") {
			t.Errorf("web_search: suggested %q; %s shares no word with it", got, m)
		}
	}
	for _, asked := range []string{"", "x", strings.Repeat("openhuman.", 200_000), "prompts/list"} {
		got := registry.SuggestRPCMethods(asked)
		if len(got) != 3 {
			t.Errorf("%.40q: %d suggestions", asked, len(got))
		}
		for _, m := range got {
			if !registry.IsRPCMethod(m) {
				t.Errorf("%.40q: suggested %s, which is no method", asked, m)
			}
		}
	}
}

// TestToolsDocListsEveryRPCMethod keeps docs/tools.md's table of /rpc
// methods whole, each with the scope a token needs for it.
func TestToolsDocListsEveryRPCMethod(t *testing.T) {
	b, err := os.ReadFile("../../../docs/tools.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if cells := strings.Split(line, " | "); len(cells) == 3 && strings.HasPrefix(cells[0], "| `openhuman.") {
			rows[strings.Trim(cells[0], "| `")] = strings.TrimSuffix(cells[2], " |")
		}
	}
	scopes := map[string]string{}
	for _, tl := range contract.Tools() {
		scopes[tl.RPC] = tl.Scope()
	}
	for _, m := range registry.RPCMethods() {
		want, ok := scopes[m]
		if !ok {
			want = contract.ScopeRead // the registry's, which only reads
		}
		switch got, listed := rows[m]; {
		case !listed:
			t.Errorf("docs/tools.md has no row for the JSON-RPC method %s", m)
		case got != want:
			t.Errorf("docs/tools.md gives %s the scope %q; it needs %q", m, got, want)
		}
		delete(rows, m)
	}
	for m := range rows {
		t.Errorf("docs/tools.md lists %s, which /rpc does not serve", m)
	}
}

package agents

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// CoreTool is a tool as the core agent's catalog presents it (declared in
// pkg/contract, where core.list_tools's output schema is generated from it).
type CoreTool = contract.CoreTool

// CoreTools is the core agent's catalog: the live tools minus the catalog's
// own introspection tools, which an agent has no use for.
func CoreTools(live []contract.Tool) []CoreTool {
	out := []CoreTool{}
	for _, t := range live {
		if strings.HasPrefix(t.Name, "core.") {
			continue
		}
		out = append(out, CoreTool{Name: t.Name, Description: t.Description, Parameters: t.Input})
	}
	return out
}

// ToolInstructions renders the Markdown tool-use block prompt-guided agents
// receive, from the same catalog CoreTools returns.
func ToolInstructions(tools []CoreTool) string {
	var b strings.Builder
	b.WriteString("## Tools\n\n")
	if len(tools) == 0 {
		b.WriteString("No tools are available right now. Answer from the conversation alone, and say so when that is not enough.\n")
		return b.String()
	}
	b.WriteString("You can call the tools below. Call a tool by answering with exactly one JSON object and nothing else:\n\n")
	b.WriteString("```json\n{\"tool\": \"<name>\", \"arguments\": {<arguments>}}\n```\n\n")
	b.WriteString("Rules:\n\n")
	b.WriteString("- Use only the tools and arguments listed here; unknown arguments are rejected.\n")
	b.WriteString("- Wait for each tool result before calling the next tool.\n")
	b.WriteString("- Cite memory results with their [n] markers; never invent a result.\n")
	b.WriteString("- If a tool fails, say what failed and continue without it or stop.\n\n")
	for _, t := range tools {
		fmt.Fprintf(&b, "### `%s`\n\n%s\n\n", t.Name, t.Description)
		writeParams(&b, t.Parameters)
	}
	return b.String()
}

func writeParams(b *strings.Builder, s *contract.Schema) {
	if s == nil || len(s.Properties) == 0 {
		b.WriteString("Arguments: none.\n\n")
		return
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	// Required arguments first, then alphabetical: the order a reader needs.
	sort.Slice(names, func(i, j int) bool {
		if required[names[i]] != required[names[j]] {
			return required[names[i]]
		}
		return names[i] < names[j]
	})
	b.WriteString("Arguments:\n\n")
	for _, n := range names {
		p := s.Properties[n]
		req := "optional"
		if required[n] {
			req = "required"
		}
		fmt.Fprintf(b, "- `%s` (%s, %s)", n, typeOf(p), req)
		if p.Description != "" {
			b.WriteString(": " + p.Description)
		}
		if len(p.Enum) > 0 {
			b.WriteString(" One of: " + strings.Join(p.Enum, ", ") + ".")
		}
		if p.Default != nil {
			d, _ := json.Marshal(p.Default)
			b.WriteString(" Default " + string(d) + ".")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func typeOf(s *contract.Schema) string {
	if s.Type == "array" && s.Items != nil {
		return "array of " + s.Items.Type
	}
	return s.Type
}

// Package auditlist answers openhuman.audit_list: the newest audit rows a
// caller may read, filtered by client, token and tool.
package auditlist

import (
	"context"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// scan is how many of the newest audit rows a filtered listing looks
// through: the backends keep rows in time order only.
const scan = 5000

// Method reads the audit trail: who learned, forgot, ran or decided what,
// and when.
var Method = contract.Tool{
	Name: "audit.list", RPC: "openhuman.audit_list", Title: "List the audit trail",
	Annotations: contract.Annotations{ReadOnlyHint: new(true)},
	Description: "The newest audit rows (every call that changed state, refused or not, without its content), filtered by client, token and tool. " +
		"A token limited to workspaces sees only its own rows.",
	Input: contract.Object("", nil, map[string]*contract.Schema{
		"client":        contract.String("Only rows of this client (provenance), e.g. mcp:cursor or http:laptop.").MaxLen(200),
		"token":         contract.String("Only rows made with this bearer token's name.").MaxLen(200),
		"tool":          contract.String("Only rows of this tool, e.g. memory.forget.").MaxLen(100),
		"failures_only": contract.Boolean("Only refused and failed calls."),
		"limit":         contract.Integer("How many rows (1 to 500).").Range(1, 500).Def(100),
	}),
	Output: &contract.Schema{Type: "object", Required: []string{"rows", "enabled"}, Properties: map[string]*contract.Schema{
		"rows":    {Type: "array", Items: &contract.Schema{Type: "object"}},
		"enabled": {Type: "boolean"},
		"backend": {Type: "string"},
	}},
}

// Result is what openhuman.audit_list answers.
type Result struct {
	Rows    []audit.Row `json:"rows"`
	Enabled bool        `json:"enabled"`
	Backend string      `json:"backend,omitempty"`
}

// List lists the newest rows of rec's log matching args that cc may read;
// a nil rec is an audit that is off.
func List(ctx context.Context, rec *audit.Recorder, args map[string]any, cc contract.CallContext) (*Result, error) {
	out := &Result{Rows: []audit.Row{}}
	if rec == nil {
		return out, nil
	}
	l := rec.Log()
	out.Enabled, out.Backend = true, l.Backend()
	str := func(k string) string { s, _ := args[k].(string); return s }
	client, token, tool := str("client"), str("token"), str("tool")
	if cc.Scoped() {
		// Another token's rows say when and what others wrote.
		token = cc.Token
	}
	limit := 100
	if n, ok := args["limit"].(float64); ok {
		limit = int(n)
	}
	failures, _ := args["failures_only"].(bool)
	rows, err := l.Recent(ctx, scan, failures)
	if err != nil {
		return nil, contract.Errorf(contract.CodeUnavailable, "the audit trail cannot be read right now: %v", err)
	}
	for _, r := range rows {
		if (client != "" && r.Client != client) || (token != "" && r.Token != token) || (tool != "" && r.ToolName != tool) {
			continue
		}
		out.Rows = append(out.Rows, r)
		if len(out.Rows) == limit {
			break
		}
	}
	return out, nil
}

package console

import (
	"net/http"
	"strings"
)

type auditRow struct {
	TimestampMS  int64          `json:"timestamp_ms"`
	Client       string         `json:"client"`
	Token        string         `json:"token"`
	ToolName     string         `json:"tool_name"`
	ArgsSummary  map[string]any `json:"args_summary"`
	Success      bool           `json:"success"`
	ErrorMessage string         `json:"error_message"`
}

type auditData struct {
	Client, Token, Tool string
	Failures            bool
	Enabled             bool
	Backend             string
	Rows                []auditRow
	// Scoped is true for a token limited to workspaces: it sees its own rows only.
	Scoped bool
}

// auditList is the audit trail: who learned, forgot, ran or decided what
// and when (without content), filtered by client, token and tool.
func (c *Console) auditList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := auditData{Client: strings.TrimSpace(q.Get("client")), Token: strings.TrimSpace(q.Get("token")), Tool: strings.TrimSpace(q.Get("tool")),
		Failures: q.Get("failures") == "on", Scoped: callContext(r.Context()).Scoped()}
	params := map[string]any{"limit": 200}
	for k, v := range map[string]string{"client": d.Client, "token": d.Token, "tool": d.Tool} {
		if v != "" {
			params[k] = v
		}
	}
	if d.Failures {
		params["failures_only"] = true
	}
	var res struct {
		Rows    []auditRow `json:"rows"`
		Enabled bool       `json:"enabled"`
		Backend string     `json:"backend"`
	}
	if err := c.call(r, "openhuman.audit_list", params, &res); err != nil {
		c.fail(w, r, err)
		return
	}
	d.Rows, d.Enabled, d.Backend = res.Rows, res.Enabled, res.Backend
	c.render(w, r, http.StatusOK, "audit", view{Title: "Audit", Nav: "audit", Data: d})
}

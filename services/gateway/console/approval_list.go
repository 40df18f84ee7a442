package console

import (
	"net/http"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// pending is a sub-agent's call waiting for a decision (approval.list).
type pending struct {
	ID          string         `json:"id"`
	AgentID     string         `json:"agent_id"`
	Tool        string         `json:"tool"`
	Arguments   map[string]any `json:"arguments"`
	Client      string         `json:"client"`
	Token       string         `json:"token"`
	Workspaces  []string       `json:"workspaces"`
	RequestedMS int64          `json:"requested_ms"`
	ExpiresMS   int64          `json:"expires_ms"`
}

// decided is a call that waited and how it ended.
type decided struct {
	pending
	Outcome      string `json:"outcome"`
	Reason       string `json:"reason"`
	DecidedBy    string `json:"decided_by"`
	DecidedToken string `json:"decided_token"`
	DecidedMS    int64  `json:"decided_ms"`
}

type approvalsData struct {
	Mode    string    `json:"mode"`
	Pending []pending `json:"pending"`
	Decided []decided `json:"decided"`
}

// approvalList shows the calls waiting (their arguments as the agents
// service shows them, secrets removed) and the last ones decided. The
// list refreshes itself every two seconds with htmx.
func (c *Console) approvalList(w http.ResponseWriter, r *http.Request) {
	var d approvalsData
	if err := c.call(r, contract.ApprovalList.RPC, map[string]any{}, &d); err != nil {
		c.fail(w, r, err)
		return
	}
	v := view{Title: "Approvals", Nav: "approvals", Data: d}
	switch r.URL.Query().Get("done") {
	case "approved":
		v.Notice = "Approved: the sub-agent's call goes ahead."
	case "denied":
		v.Notice = "Denied: the sub-agent is told so, with your note."
	}
	c.render(w, r, http.StatusOK, "approvals", v)
}

package console

import (
	"net/http"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// approvalList shows the calls waiting (their arguments as the agents
// service shows them, secrets removed) and the last ones decided. The
// list refreshes itself every two seconds with htmx.
func (c *Console) approvalList(w http.ResponseWriter, r *http.Request) {
	var d contract.ApprovalQueue
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

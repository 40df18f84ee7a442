package console

import (
	"net/http"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// approvalDecide approves or denies one waiting call with approval.decide,
// the signed-in token deciding, with the note given.
func (c *Console) approvalDecide(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(r); err != nil {
		c.fail(w, r, err)
		return
	}
	approve := r.PostFormValue("decision") == "approve"
	params := map[string]any{"id": r.PostFormValue("id"), "approve": approve}
	if note := strings.TrimSpace(r.PostFormValue("note")); note != "" {
		params["reason"] = note
	}
	if err := c.call(r, contract.ApprovalDecide.RPC, params, nil); err != nil {
		c.fail(w, r, err)
		return
	}
	done := "denied"
	if approve {
		done = "approved"
	}
	http.Redirect(w, r, Prefix+"/approvals?done="+done, http.StatusSeeOther)
}

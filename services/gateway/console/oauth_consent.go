package console

import (
	"net/http"
	"slices"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/console/websession"
	"github.com/openhuman-go/openhuman-go/services/gateway/httpstatus"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
)

// The consent page: a remote MCP client's authorization request, shown to
// the signed-in person, who grants some of the scopes it asks for (only
// those their token holds) and, when they like, fewer workspaces, or
// denies it. Either way they are sent back to the client.

type consentData struct {
	Request string
	Pending oauth.Pending
	Scopes  []consentScope
	// Limited are the signed-in token's workspaces, when it has a limit.
	Limited []string
}

type consentScope struct {
	Name, What string
	Held       bool
}

var scopeWhat = map[string]string{
	contract.ScopeRead: "read memory, search the web, see sub-agents and approvals",
	contract.ScopeAct:  "learn and forget, run sub-agents, decide approvals",
}

func (c *Console) consent(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("request")
	p, err := c.opts.OAuth.Request(r.Context(), id)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.renderConsent(w, r, http.StatusOK, id, p, "")
}

func (c *Console) renderConsent(w http.ResponseWriter, r *http.Request, status int, id string, p oauth.Pending, msg string) {
	s := websession.FromContext(r.Context())
	data := consentData{Request: id, Pending: p, Limited: s.Workspaces}
	for _, sc := range p.Scopes {
		data.Scopes = append(data.Scopes, consentScope{Name: sc, What: scopeWhat[sc], Held: s.Scopes == nil || slices.Contains(s.Scopes, sc)})
	}
	allowFormTarget(w, p.RedirectOrigin)
	c.render(w, r, status, "consent", view{Title: "Connect " + p.ClientName, Data: data, Error: msg})
}

// consentDecide passes the person's answer to the authorization server
// and sends them where it says: back to the client.
func (c *Console) consentDecide(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(r); err != nil {
		c.fail(w, r, err)
		return
	}
	s := websession.FromContext(r.Context())
	id := r.PostFormValue("request")
	d := oauth.Decision{Approve: r.PostFormValue("decision") == "approve", Scopes: r.PostForm["scope"], Workspaces: r.PostForm["workspace"]}
	for _, ws := range strings.Split(r.PostFormValue("workspaces"), ",") {
		if ws = strings.TrimSpace(ws); ws != "" {
			d.Workspaces = append(d.Workspaces, ws)
		}
	}
	var back string
	var err error
	if d.Approve && len(s.Workspaces) > 0 && len(d.Workspaces) == 0 {
		// None ticked is not all of the token's.
		err = contract.Errorf(contract.CodeInvalidRequest, "tick at least one workspace, or deny")
	} else {
		back, err = c.opts.OAuth.Decide(r.Context(), id, oauth.Identity{Name: s.Token, Scopes: s.Scopes, Workspaces: s.Workspaces}, d)
	}
	if err != nil {
		code := contract.ErrorCode(err)
		if p, perr := c.opts.OAuth.Request(r.Context(), id); perr == nil && (code == contract.CodeDenied || code == contract.CodeInvalidRequest) {
			c.renderConsent(w, r, httpstatus.Of(code), id, p, contract.ErrorMessage(err))
			return
		}
		c.fail(w, r, err)
		return
	}
	c.opts.Logger.Info("console: an OAuth request answered", "token", s.Token, "approved", d.Approve)
	http.Redirect(w, r, back, http.StatusSeeOther)
}

package console

import (
	"net/http"
	"slices"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/console/websession"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
)

// clientList shows the remote clients connected by OAuth, with the bearer
// token each grant came from (its name, which names one token only: a
// grant ends when its token is removed or replaced) and when each was
// last used: the signed-in token's grants, or every grant for a token
// that may act on every workspace.
func (c *Console) clientList(w http.ResponseWriter, r *http.Request) {
	grants, err := c.visibleGrants(r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	v := view{Title: "Connected clients", Nav: "clients", Data: grants}
	if r.URL.Query().Get("done") == "revoked" {
		v.Notice = "Revoked: its tokens no longer work."
	}
	c.render(w, r, http.StatusOK, "clients", v)
}

func (c *Console) visibleGrants(r *http.Request) ([]oauth.Grant, error) {
	grants, err := c.opts.OAuth.Grants(r.Context())
	if err != nil {
		return nil, err
	}
	s := websession.FromContext(r.Context())
	if seesAll(s) {
		return grants, nil
	}
	return slices.DeleteFunc(grants, func(g oauth.Grant) bool { return g.Owner != s.Token }), nil
}

func seesAll(s *websession.Session) bool {
	return len(s.Workspaces) == 0 && (s.Scopes == nil || slices.Contains(s.Scopes, contract.ScopeAct))
}

// clientRevoke revokes one grant the person may see.
func (c *Console) clientRevoke(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(r); err != nil {
		c.fail(w, r, err)
		return
	}
	grants, err := c.visibleGrants(r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	id := r.PostFormValue("grant")
	if !slices.ContainsFunc(grants, func(g oauth.Grant) bool { return g.ID == id }) {
		c.fail(w, r, contract.Errorf(contract.CodeNotFound, "that connection is not one you can see; it may be revoked already"))
		return
	}
	s := websession.FromContext(r.Context())
	if err := c.opts.OAuth.Revoke(r.Context(), id, "console:"+s.Token); err != nil {
		c.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/clients?done=revoked", http.StatusSeeOther)
}

package console

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/services/gateway/clientaddr"
	"github.com/openhuman-go/openhuman-go/services/gateway/console/websession"
)

// signInCheck signs in with the token posted: a session cookie for the
// token's name and workspaces. Wrong tokens count against the client's
// address (failurelimit.Guard), so a correct one from elsewhere is never
// held back by them.
func (c *Console) signInCheck(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(r); err != nil {
		c.fail(w, r, err)
		return
	}
	next := localNext(r.PostFormValue("next"))
	if c.open() {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	addr := clientaddr.Key(r.RemoteAddr)
	if wait := c.limiter.Wait(addr); wait > 0 {
		secs := int(wait.Round(time.Second).Seconds()) + 1
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		c.render(w, r, http.StatusTooManyRequests, "signin", view{Title: "Sign in", Data: signInData{Next: next},
			Error: "Too many failed sign-ins from your address; try again in " + strconv.Itoa(secs) + " seconds."})
		return
	}
	token := strings.TrimSpace(r.PostFormValue("token"))
	var name string
	var scopes, workspaces []string
	var ok bool
	if token != "" {
		name, scopes, workspaces, ok = c.opts.Authenticate(token)
	}
	if !ok {
		if token != "" {
			c.limiter.Failed(addr, token)
		}
		c.opts.Logger.Info("console sign-in refused: the token matches none", "remote", r.RemoteAddr)
		msg := "That token matches no token of this server. Paste the token `openhuman-core token new NAME` printed (it starts with oh_), or OPENHUMAN_API_TOKEN."
		if token == "" {
			msg = "Paste a bearer token to sign in."
		}
		c.render(w, r, http.StatusUnauthorized, "signin", view{Title: "Sign in", Data: signInData{Next: next}, Error: msg})
		return
	}
	if _, err := c.sessions.Start(w, r, websession.Identity{Token: name, Scopes: scopes, Workspaces: workspaces}); err != nil {
		c.opts.Logger.Error("a console session could not be started", "err", err)
		c.renderError(w, r, http.StatusServiceUnavailable, "A session could not be started; check the server's log.")
		return
	}
	c.opts.Logger.Info("console sign-in", "token", name, "remote", r.RemoteAddr)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

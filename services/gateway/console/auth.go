package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/openhuman-go/openhuman-go/services/gateway/console/websession"
)

// open reports whether the server has no tokens: every caller is let in.
func (c *Console) open() bool { return c.opts.Authenticate == nil }

// requireSession finds the request's session. Without one, a person is
// sent to sign in; on an open server one is started for them, since
// forms need its CSRF token all the same.
func (c *Console) requireSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, err := c.sessions.Find(r)
		if err != nil {
			c.opts.Logger.Error("console sessions cannot be read", "err", err)
			c.renderError(w, r, http.StatusServiceUnavailable, "Sessions cannot be read right now; try again, and check the server's log if it lasts.")
			return
		}
		if s == nil && c.open() && websession.Safe(r.Method) {
			if s, err = c.sessions.Start(w, r, websession.Identity{}); err != nil {
				c.opts.Logger.Error("a console session could not be started", "err", err)
				c.renderError(w, r, http.StatusServiceUnavailable, "A session could not be started; check the server's log.")
				return
			}
		}
		if s == nil {
			if !websession.Safe(r.Method) {
				c.renderError(w, r, http.StatusForbidden, "You are not signed in (or your session ended); sign in and send it again.")
				return
			}
			http.Redirect(w, r, Prefix+"/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		next.ServeHTTP(w, r.WithContext(websession.NewContextWithSession(r.Context(), s)))
	})
}

// localNext is where to go after signing in: a console page, never
// another site.
func localNext(next string) string {
	if !strings.HasPrefix(next, Prefix+"/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return Prefix + "/memory"
	}
	return next
}

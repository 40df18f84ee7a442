package console

import (
	"net/http"

	"github.com/openhuman-go/openhuman-go/services/gateway/console/websession"
)

// signOut revokes the session: its cookie opens nothing from now on.
func (c *Console) signOut(w http.ResponseWriter, r *http.Request) {
	if err := c.sessions.End(w, r); err != nil {
		c.opts.Logger.Error("a console session could not be ended", "err", err)
		c.renderError(w, r, http.StatusServiceUnavailable, "The session could not be ended; try again.")
		return
	}
	// The page is rendered as for nobody: the session is gone.
	c.render(w, r.WithContext(websession.NewContextWithSession(r.Context(), nil)), http.StatusOK, "signedout", view{Title: "Signed out"})
}

package console

import "net/http"

type signInData struct {
	Next string
}

// signIn shows the sign-in form: a bearer token, as the API takes it.
func (c *Console) signIn(w http.ResponseWriter, r *http.Request) {
	if s, _ := c.sessions.Find(r); s != nil || c.open() {
		http.Redirect(w, r, localNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	c.render(w, r, http.StatusOK, "signin", view{Title: "Sign in", Data: signInData{Next: localNext(r.URL.Query().Get("next"))}})
}

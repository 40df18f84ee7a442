package websession

import (
	"crypto/subtle"
	"errors"
	"net/http"

	"github.com/openhuman-go/openhuman-go/services/gateway/bodybudget"
)

// Every state-changing request (any method but GET, HEAD and OPTIONS) of a
// session must carry the session's CSRF token, in the form field FormField
// or the header Header, and must come from the server's own pages: Go's
// http.CrossOriginProtection refuses it when the browser says
// (Sec-Fetch-Site, or an Origin of another host) that another site sent it.
// The first stops a page that could forge a request but cannot read ours;
// the second stops one even before a session exists, such as a forged
// sign-in.
const (
	FormField = "csrf"
	Header    = "X-Csrf-Token"
)

// Deny answers a refused request; reason says why, for the person.
type Deny func(w http.ResponseWriter, r *http.Request, status int, reason string)

// Safe reports whether method changes nothing (GET, HEAD, OPTIONS).
func Safe(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
}

// CrossOrigin refuses state-changing requests another site sent.
func CrossOrigin(deny Deny) func(http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := cop.Check(r); err != nil {
				deny(w, r, http.StatusForbidden, "this request came from another site's page, so it was refused; use the console's own pages")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// RequireCSRF refuses a state-changing request whose session (from
// FromContext) it does not carry the token of.
func RequireCSRF(deny Deny) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if Safe(r.Method) {
				next.ServeHTTP(w, r)
				return
			}
			s := FromContext(r.Context())
			got := r.Header.Get(Header)
			if got == "" {
				if err := r.ParseForm(); errors.Is(err, bodybudget.ErrExhausted) {
					deny(w, r, http.StatusServiceUnavailable, "the server is reading as many requests as it may at once; send the form again in a moment")
					return
				}
				got = r.PostFormValue(FormField)
			}
			if s == nil || got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(s.CSRF)) != 1 {
				deny(w, r, http.StatusForbidden, "the form was not sent from this session's page (its CSRF token is missing or stale); reload the page and try again")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

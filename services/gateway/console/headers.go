package console

import (
	"net/http"
	"strings"
)

// contentSecurityPolicy lets a page load only the console's own script,
// stylesheet and images, run no inline script or style, post forms only
// here, and be framed by nobody.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// securityHeaders sets every response's security headers, here and
// nowhere else, so that no page can forget them.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		// Not no-referrer: under it a browser sends "Origin: null" with a
		// form's POST, which the host check refuses as any sandboxed page.
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		// Pages hold memory's content: no cache keeps a copy. Assets,
		// which hold none, say otherwise (assets.go).
		h.Set("Cache-Control", "no-store")
		if r.TLS != nil {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		next.ServeHTTP(w, r)
	})
}

// allowFormTarget lets the page's forms lead to origin as well: the
// consent page's answer is a redirect to the client's redirect URI, which
// browsers check against form-action like the form's own target.
func allowFormTarget(w http.ResponseWriter, origin string) {
	w.Header().Set("Content-Security-Policy", strings.Replace(contentSecurityPolicy, "form-action 'self'", "form-action 'self' "+origin, 1))
}

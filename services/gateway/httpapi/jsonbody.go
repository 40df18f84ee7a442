package httpapi

import (
	"mime"
	"net/http"
)

// jsonBody refuses, with 415 and before reading it, a body not declared
// application/json (parameters such as charset are fine). A web page may
// send text/plain, form and multipart bodies anywhere without asking
// first; application/json makes the browser ask with a CORS preflight,
// which this server never grants. So no cross-site page gets a request
// through, even one whose Origin the host check cannot judge (null, or
// none at all).
func jsonBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct := r.Header.Get("Content-Type")
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			had := "no Content-Type"
			if ct != "" {
				had = "Content-Type " + clipHeader(ct)
			}
			writeError(w, http.StatusUnsupportedMediaType, "Unsupported Media Type: send the body as JSON with Content-Type: application/json (this request had "+
				had+"); with curl, add -H 'Content-Type: application/json'")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// clipHeader bounds a header value echoed back in an error.
func clipHeader(v string) string {
	if len(v) > 100 {
		return v[:100] + "…"
	}
	return v
}

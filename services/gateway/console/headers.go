package console

import (
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
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
// browsers check against form-action like the form's own target. The
// origin comes from a client: it is written only as a CSP source
// expression rebuilt from its parsed parts, and not at all when it is not
// one (the redirect is then blocked by the browser, which is safe).
func allowFormTarget(w http.ResponseWriter, origin string) {
	src, ok := cspSource(origin)
	if !ok {
		return
	}
	w.Header().Set("Content-Security-Policy", strings.Replace(contentSecurityPolicy, "form-action 'self'", "form-action 'self' "+src, 1))
}

// cspSource is origin as a CSP host-source, scheme://host[:port]: an http
// or https scheme, a host of letters, digits, hyphens and dots or an IP
// address, a port of digits. Anything else, ";" and "," and spaces among
// it, is no source at all.
func cspSource(origin string) (string, bool) {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Opaque != "" || u.User != nil ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	host, port := u.Hostname(), u.Port()
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return "", false
		}
		host = a.String()
		if a.Is6() {
			host = "[" + host + "]"
		}
	} else if !dnsName.MatchString(host) {
		return "", false
	}
	if port != "" {
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return "", false
		}
		host += ":" + port
	}
	return u.Scheme + "://" + host, true
}

// dnsName is a host name of letters, digits and hyphens between dots.
var dnsName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$`)

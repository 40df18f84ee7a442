package oauth

import (
	"context"
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// checkRedirectURI says what is wrong with a redirect URI a client
// registers: it must be https, or http on a loopback address (a client on
// the person's own machine, RFC 8252), absolute, without a fragment, of
// URI characters only, with a host that is a DNS name or an IP address
// (see redirecturi.go: its origin is written into headers).
func checkRedirectURI(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "":
		return "redirect URI " + quoteSafe(raw) + " is not an absolute URL"
	case !uriChars(raw):
		return "redirect URI " + quoteSafe(raw) + " holds characters a URI may not (spaces, quotes, <>\\^`{|}, or any beyond ASCII): percent-encode them"
	case !hostName(u.Hostname()):
		return "redirect URI " + quoteSafe(raw) + " has a host that is neither a DNS name (letters, digits, hyphens and dots) nor an IP address"
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return "redirect URI " + quoteSafe(raw) + " has a fragment, which OAuth forbids"
	case u.User != nil:
		return "redirect URI " + quoteSafe(raw) + " carries a user name or password"
	case u.Scheme == "https":
		return ""
	case u.Scheme == "http" && isLoopbackHost(u.Hostname()):
		return ""
	}
	return "redirect URI " + quoteSafe(raw) + " is neither https nor http on a loopback address (127.0.0.1, [::1], localhost); this server takes no other"
}

// matchRedirect reports whether the redirect URI of a request is one the
// client registered: exactly, or for a loopback http URI with any port,
// as RFC 8252 section 7.3 has native apps bind whichever port is free.
// A URI the registration check would refuse never matches.
func matchRedirect(registered []string, asked string) bool {
	if checkRedirectURI(asked) != "" {
		return false // registered before the check was what it is
	}
	if slices.Contains(registered, asked) {
		return true
	}
	a, err := url.Parse(asked)
	if err != nil || a.Scheme != "http" || !isLoopbackHost(a.Hostname()) {
		return false
	}
	for _, r := range registered {
		u, err := url.Parse(r)
		if err == nil && u.Scheme == a.Scheme && u.Hostname() == a.Hostname() && u.Path == a.Path && u.RawQuery == a.RawQuery && a.Fragment == "" {
			return true
		}
	}
	return false
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

func isLoopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && isLoopbackHost(u.Hostname())
}

// client finds a client by its id: a registered one in the store, or, for
// an https URL, the one its metadata document describes. found is false
// for neither (a client deleted, or never registered).
func (s *Server) client(ctx context.Context, id string) (Client, bool, error) {
	if isDocumentID(id) {
		c, err := s.docs.get(ctx, id)
		if err != nil {
			return Client{}, false, err
		}
		return c, true, nil
	}
	var c Client
	found, err := s.get(ctx, kindClient, id, &c)
	return c, found, err
}

// authenticate finds the client a token or revocation request comes
// from and checks its secret when it has one. A client that is unknown
// (deleted, as a revoked connection's is) is invalid_client, 401: the
// client then registers anew.
func (s *Server) authenticate(r *http.Request) (Client, error) {
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
	}
	if id == "" {
		return Client{}, invalidClient("client_id is missing: send it in the form, or with its secret in HTTP Basic")
	}
	c, found, err := s.client(r.Context(), id)
	if err != nil {
		var pe *protoError
		if isProto(err, &pe) {
			return Client{}, invalidClient(pe.Description)
		}
		return Client{}, err
	}
	if !found {
		return Client{}, invalidClient("client " + quoteSafe(id) + " is not registered here (or was removed when its access was revoked): register again")
	}
	if c.AuthMethod == "none" {
		return c, nil
	}
	if secret == "" || subtle.ConstantTimeCompare([]byte(digest(secret)), []byte(c.SecretHash)) != 1 {
		return Client{}, invalidClient("the client secret is missing or wrong")
	}
	return c, nil
}

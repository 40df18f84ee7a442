package oauth

import (
	"errors"
	"net/http"
	"net/url"
)

// protoError is an OAuth error response (RFC 6749 section 5.2, RFC 7591
// section 3.2.2, RFC 8707): a code a client acts on, a description a
// person reads, and the HTTP status it goes with.
type protoError struct {
	Code        string
	Description string
	Status      int
}

func (e *protoError) Error() string { return e.Code + ": " + e.Description }

func invalidRequest(msg string) *protoError {
	return &protoError{"invalid_request", msg, http.StatusBadRequest}
}

func invalidClient(msg string) *protoError {
	return &protoError{"invalid_client", msg, http.StatusUnauthorized}
}

func invalidGrant(msg string) *protoError {
	return &protoError{"invalid_grant", msg, http.StatusBadRequest}
}

func invalidTarget(msg string) *protoError {
	return &protoError{"invalid_target", msg, http.StatusBadRequest}
}

func invalidScope(msg string) *protoError {
	return &protoError{"invalid_scope", msg, http.StatusBadRequest}
}

func serverError() *protoError {
	return &protoError{"server_error", "the authorization server's store failed; try again, and check the server's log if it lasts", http.StatusServiceUnavailable}
}

// writeError answers a token, revocation or registration request with err;
// an error that is no protoError is a server error, its detail logged.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var pe *protoError
	if !errors.As(err, &pe) {
		s.opts.Logger.Error("oauth: a request failed", "path", r.URL.Path, "err", err)
		pe = serverError()
	} else {
		s.opts.Logger.Info("oauth: request refused", "path", r.URL.Path, "error", pe.Code, "why", pe.Description, "remote", r.RemoteAddr)
	}
	if pe.Status == http.StatusUnauthorized {
		if _, _, basic := r.BasicAuth(); basic {
			w.Header().Set("WWW-Authenticate", `Basic realm="openhuman"`)
		}
	}
	writeJSON(w, pe.Status, map[string]string{"error": pe.Code, "error_description": pe.Description})
}

// redirectError sends the person back to the client with err, as the
// authorization endpoint answers once the redirect URI is known good.
func (s *Server) redirectError(w http.ResponseWriter, r *http.Request, redirectURI, state string, err *protoError) {
	s.opts.Logger.Info("oauth: authorization refused", "error", err.Code, "why", err.Description, "remote", r.RemoteAddr)
	http.Redirect(w, r, s.redirectURL(redirectURI, url.Values{"error": {err.Code}, "error_description": {err.Description}}, state), http.StatusSeeOther)
}

// redirectURL is the client's redirect URI with params, state and iss
// (RFC 9207) added to its own query.
func (s *Server) redirectURL(redirectURI string, params url.Values, state string) string {
	u, _ := url.Parse(redirectURI) // checked when it was registered
	q := u.Query()
	for k, vs := range params {
		q[k] = vs
	}
	if state != "" {
		q.Set("state", state)
	}
	q.Set("iss", s.issuer)
	u.RawQuery = q.Encode()
	return u.String()
}

func isProto(err error, pe **protoError) bool { return errors.As(err, pe) }

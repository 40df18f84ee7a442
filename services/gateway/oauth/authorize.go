package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// The authorization endpoint checks a request and hands the person to the
// console's consent page; the console calls Decide with their answer.
// Until the client and its redirect URI are known good, a bad request is
// answered with a page of its own; after, the person is sent back to the
// client with the error, as RFC 6749 section 4.1.2.1 has it. state is
// returned as it came, inside the registered redirect URI's query, never
// anywhere else.
const (
	requestTTL = 10 * time.Minute
	codeTTL    = 2 * time.Minute
)

// challengeForm is an S256 code challenge: 32 bytes in unpadded base64url.
var challengeForm = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	clientID := q.Get("client_id")
	if clientID == "" {
		s.refusePage(w, http.StatusBadRequest, "The authorization request has no client_id. Start again from the application that sent you here.")
		return
	}
	c, found, err := s.client(r.Context(), clientID)
	var pe *protoError
	switch {
	case isProto(err, &pe):
		s.refusePage(w, http.StatusBadRequest, "The application could not be identified: "+pe.Description+".")
		return
	case err != nil:
		s.opts.Logger.Error("oauth: reading a client failed", "err", err)
		s.refusePage(w, http.StatusServiceUnavailable, "The server could not read its clients; try again, and check its log if it lasts.")
		return
	case !found:
		s.refusePage(w, http.StatusBadRequest, "The application "+quoteSafe(clientID)+" is not registered here (or its access was revoked). Let it connect again, so that it registers anew.")
		return
	}
	redirectURI := q.Get("redirect_uri")
	if redirectURI == "" && len(c.RedirectURIs) == 1 {
		redirectURI = c.RedirectURIs[0]
	}
	if !matchRedirect(c.RedirectURIs, redirectURI) {
		s.refusePage(w, http.StatusBadRequest, "The redirect URI "+quoteSafe(redirectURI)+" is not one "+quoteSafe(c.Name)+" registered, so you are not sent there. Nothing was granted.")
		return
	}
	state := q.Get("state")
	fail := func(e *protoError) { s.redirectError(w, r, redirectURI, state, e) }
	switch {
	case q.Get("response_type") != "code":
		fail(&protoError{"unsupported_response_type", "response_type must be code", http.StatusBadRequest})
		return
	case q.Get("code_challenge") == "":
		fail(invalidRequest("code_challenge is missing: this server requires PKCE with S256"))
		return
	case q.Get("code_challenge_method") != "S256":
		fail(invalidRequest("code_challenge_method must be S256; plain and others are refused"))
		return
	case !challengeForm.MatchString(q.Get("code_challenge")):
		fail(invalidRequest("code_challenge is not an S256 challenge (43 characters of base64url)"))
		return
	}
	resource, perr := s.checkResource(q["resource"])
	if perr != nil {
		fail(perr)
		return
	}
	scopes, perr := askedScopes(q.Get("scope"))
	if perr != nil {
		fail(perr)
		return
	}
	ru, _ := url.Parse(redirectURI)
	req := request{ClientID: c.ID, ClientName: c.Name, ClientURI: c.URI, Document: c.Document, RedirectURI: redirectURI, State: state,
		Challenge: q.Get("code_challenge"), Scopes: scopes, Resource: resource, Created: s.opts.Now(), RedirectHost: ru.Host}
	// Marked before the request is kept, so that a flood of registrations
	// meanwhile leaves the client be (room.go).
	if !c.Document {
		switch err := s.markBusy(r.Context(), c.ID, req.Created.Add(requestTTL)); {
		case errors.Is(err, errClientGone):
			s.refusePage(w, http.StatusBadRequest, "The application "+quoteSafe(clientID)+" is not registered here (or its access was revoked). Let it connect again, so that it registers anew.")
			return
		case err != nil:
			s.opts.Logger.Error("oauth: recording an authorization on its client failed", "err", err)
			fail(serverError())
			return
		}
	}
	id := newSecret("")
	if err := s.put(r.Context(), kindRequest, digest(id), req, req.Created.Add(requestTTL)); err != nil {
		s.opts.Logger.Error("oauth: keeping an authorization request failed", "err", err)
		fail(serverError())
		return
	}
	http.Redirect(w, r, s.opts.ConsentURL+"?request="+url.QueryEscape(id), http.StatusSeeOther)
}

// checkResource is the RFC 8707 resource a request names: this server's
// /mcp (its canonical URI, with or without a trailing slash), or none,
// which means it. Any other is invalid_target.
func (s *Server) checkResource(asked []string) (string, *protoError) {
	for _, r := range asked {
		if !oauthex.MatchesResource([]string{r}, s.resource) {
			return "", invalidTarget("resource " + quoteSafe(r) + " is not served here; tokens of this server are for " + s.resource)
		}
	}
	return s.resource, nil
}

// askedScopes are the known scopes of a scope parameter; none asked is
// every scope (the person may grant less). Unknown ones are ignored, as
// RFC 6749 lets a server do, unless nothing known is left.
func askedScopes(param string) ([]string, *protoError) {
	fields := strings.Fields(param)
	if len(fields) == 0 {
		return slices.Clone(contract.Scopes), nil
	}
	var out []string
	for _, f := range fields {
		if slices.Contains(contract.Scopes, f) && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, invalidScope("scope " + quoteSafe(param) + " holds none of this server's scopes: read, act")
	}
	return out, nil
}

// refusePage answers the person when there is no client to send them back to.
func (s *Server) refusePage(w http.ResponseWriter, status int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	_, _ = w.Write([]byte("Authorization refused: " + msg + "\n"))
}

// Pending is an authorization request as the consent page shows it.
type Pending struct {
	ClientName string
	ClientID   string
	ClientURI  string
	// Document is true when the client is known by a metadata document
	// at ClientID, rather than registered here.
	Document bool
	// RedirectHost is where the person is sent back; LoopbackOnly warns
	// that it is this machine, which any program on it can listen at.
	RedirectHost   string
	RedirectOrigin string
	LoopbackOnly   bool
	Scopes         []string
	Resource       string
}

// Request returns the pending request id names, NOT_FOUND when there is
// none (it expired or was decided).
func (s *Server) Request(ctx context.Context, id string) (Pending, error) {
	var req request
	found, err := s.get(ctx, kindRequest, digest(id), &req)
	if err != nil {
		return Pending{}, contract.Errorf(contract.CodeUnavailable, "the authorization server's store cannot be read: %v", err)
	}
	if !found {
		return Pending{}, contract.Errorf(contract.CodeNotFound, "this authorization request has expired or was already answered; start again from the application")
	}
	u, _ := url.Parse(req.RedirectURI)
	return Pending{ClientName: req.ClientName, ClientID: req.ClientID, ClientURI: req.ClientURI, Document: req.Document,
		RedirectHost: req.RedirectHost, RedirectOrigin: u.Scheme + "://" + u.Host, LoopbackOnly: isLoopbackHost(u.Hostname()),
		Scopes: req.Scopes, Resource: req.Resource}, nil
}

package oauth

import (
	"context"
	"crypto/subtle"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/oauth2"
)

// The token endpoint: an authorization code (with its PKCE verifier) or a
// refresh token for an access token and a new refresh token. A refresh
// token works once: the one it is exchanged for replaces it, and a used
// one presented again means it was copied, so the grant is revoked, and
// every token of it with it (OAuth 2.1 section 4.3.1). A code presented
// twice revokes its grant the same way (section 4.1.3). A code or refresh
// token counts as used only by an exchange that is granted: one refused
// for its verifier, client, scope or resource leaves it as it was.
const maxFormBytes = 64 << 10

// AccessPrefix starts every access token this server issues: an edge that
// takes them at /mcp alone can tell one sent elsewhere.
const AccessPrefix = "ohat_"

// verifierForm is RFC 7636's code_verifier: 43 to 128 unreserved characters.
var verifierForm = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	c, err := s.formClient(w, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var out map[string]any
	switch gt := r.PostFormValue("grant_type"); gt {
	case "authorization_code":
		out, err = s.exchangeCode(r, c)
	case "refresh_token":
		out, err = s.refresh(r, c)
	case "":
		err = invalidRequest("grant_type is missing: use authorization_code or refresh_token")
	default:
		err = &protoError{"unsupported_grant_type", "grant_type " + quoteSafe(gt) + " is not supported; use authorization_code or refresh_token", http.StatusBadRequest}
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, http.StatusOK, out)
}

// formClient reads the form of a request to the token or revocation
// endpoint and the client it authenticates as.
func (s *Server) formClient(w http.ResponseWriter, r *http.Request) (Client, error) {
	if err := parseForm(w, r); err != nil {
		return Client{}, err
	}
	return s.authenticate(r)
}

func parseForm(w http.ResponseWriter, r *http.Request) error {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		return invalidRequest("send the request as application/x-www-form-urlencoded")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return invalidRequest("the form could not be read: " + err.Error())
	}
	return nil
}

func (s *Server) exchangeCode(r *http.Request, c Client) (map[string]any, error) {
	ctx := r.Context()
	value := r.PostFormValue("code")
	if value == "" {
		return nil, invalidRequest("code is missing")
	}
	var cr code
	found, err := s.get(ctx, kindCode, digest(value), &cr)
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, invalidGrant("the code is unknown or expired (a code lasts two minutes); authorize again")
	case cr.ClientID != c.ID:
		return nil, invalidGrant("the code was issued to another client")
	case r.PostFormValue("redirect_uri") != cr.RedirectURI:
		return nil, invalidGrant("redirect_uri differs from the one the code was issued for")
	}
	verifier := r.PostFormValue("code_verifier")
	if !verifierForm.MatchString(verifier) {
		return nil, invalidGrant("code_verifier is missing or not 43 to 128 unreserved characters (PKCE)")
	}
	if subtle.ConstantTimeCompare([]byte(oauth2.S256ChallengeFromVerifier(verifier)), []byte(cr.Challenge)) != 1 {
		return nil, invalidGrant("code_verifier does not match the code_challenge (PKCE S256)")
	}
	if res, perr := s.checkResource(r.PostForm["resource"]); perr != nil {
		return nil, perr
	} else if res != cr.Resource {
		return nil, invalidTarget("resource differs from the one authorized")
	}
	// Used only now: a refused exchange leaves the code to the right one.
	found, first, err := s.spend(ctx, kindCode, digest(value))
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, invalidGrant("the code is unknown or expired (a code lasts two minutes); authorize again")
	case !first:
		s.revokeGrant(ctx, cr.GrantID, "its code was presented twice")
		return nil, invalidGrant("the code was already used: the tokens issued for it are revoked; authorize again")
	}
	var g Grant
	found, err = s.get(ctx, kindGrant, cr.GrantID, &g)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, invalidGrant("the grant was revoked; authorize again")
	}
	if s.outlived(ctx, g) {
		return nil, invalidGrant("the grant was revoked: " + tokenGone + "; authorize again")
	}
	if !c.Document && !c.Granted {
		c.Granted = true // kept from now on
		if _, err := s.update(ctx, kindClient, c.ID, c, zeroTime); err != nil {
			return nil, err
		}
	}
	g.Issued = true
	return s.issue(ctx, g, nil)
}

func (s *Server) refresh(r *http.Request, c Client) (map[string]any, error) {
	ctx := r.Context()
	value := r.PostFormValue("refresh_token")
	if value == "" {
		return nil, invalidRequest("refresh_token is missing")
	}
	var t token
	found, err := s.get(ctx, kindRefresh, digest(value), &t)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, invalidGrant("the refresh token is unknown or expired; authorize again")
	}
	var g Grant
	if found, err = s.get(ctx, kindGrant, t.GrantID, &g); err != nil {
		return nil, err
	}
	switch {
	case !found:
		return nil, invalidGrant("the grant was revoked; authorize again")
	case s.outlived(ctx, g):
		return nil, invalidGrant("the grant was revoked: " + tokenGone + "; authorize again")
	case g.ClientID != c.ID:
		return nil, invalidGrant("the refresh token was issued to another client")
	}
	if res, perr := s.checkResource(r.PostForm["resource"]); perr != nil {
		return nil, perr
	} else if res != g.Resource {
		return nil, invalidTarget("resource differs from the one authorized")
	}
	var scopes []string
	if asked := strings.Fields(r.PostFormValue("scope")); len(asked) > 0 {
		for _, sc := range asked {
			if !slices.Contains(g.Scopes, sc) {
				return nil, invalidScope("scope " + quoteSafe(sc) + " was not granted; a refresh may ask for less, never more")
			}
		}
		scopes = asked
	}
	// Used only now: a refused refresh leaves the token to try again.
	found, first, err := s.spend(ctx, kindRefresh, digest(value))
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, invalidGrant("the refresh token is unknown or expired; authorize again")
	case !first:
		s.revokeGrant(ctx, g.ID, "a used refresh token was presented again")
		return nil, invalidGrant("the refresh token was already used, so it was copied: the grant and its tokens are revoked; authorize again")
	}
	return s.issue(ctx, g, scopes)
}

// issue keeps g alive another GrantTTL and makes it an access token (for
// scopes, or all of g's) and a refresh token.
func (s *Server) issue(ctx context.Context, g Grant, scopes []string) (map[string]any, error) {
	now := s.opts.Now()
	g.LastUsed = now
	expires := now.Add(s.opts.GrantTTL)
	g.Expires = expires
	// An update, never a put: a grant revoked since it was read (its
	// refresh token presented twice at once) must stay revoked.
	if found, err := s.update(ctx, kindGrant, g.ID, g, expires); err != nil {
		return nil, err
	} else if !found {
		return nil, invalidGrant("the grant was revoked; authorize again")
	}
	if scopes == nil {
		scopes = g.Scopes
	}
	access, refresh := newSecret(AccessPrefix), newSecret("ohrt_")
	if err := s.put(ctx, kindAccess, digest(access), token{GrantID: g.ID, Expires: now.Add(s.opts.AccessTTL), Scopes: scopes}, now.Add(s.opts.AccessTTL)); err != nil {
		return nil, err
	}
	if err := s.put(ctx, kindRefresh, digest(refresh), token{GrantID: g.ID, Expires: expires}, expires); err != nil {
		return nil, err
	}
	return map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": int(s.opts.AccessTTL.Seconds()),
		"refresh_token": refresh, "scope": strings.Join(scopes, " ")}, nil
}

// revokeGrant deletes a grant, which ends every token of it.
func (s *Server) revokeGrant(ctx context.Context, id, why string) {
	if err := s.store.Delete(ctx, kindGrant, id); err != nil {
		s.opts.Logger.Error("oauth: revoking a grant failed", "grant", id, "why", why, "err", err)
		return
	}
	s.opts.Logger.Warn("oauth: grant revoked", "grant", id, "why", why)
}

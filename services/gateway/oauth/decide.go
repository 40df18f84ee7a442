package oauth

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Decision is the person's answer on the consent page.
type Decision struct {
	Approve bool
	// Scopes are those granted: some of those asked, all held by the
	// token the person signed in with.
	Scopes []string
	// Workspaces limit the grant; empty is every workspace the person's
	// token reaches (all of them, for a token without a limit).
	Workspaces []string
}

// Decide answers the pending request id for who, the bearer token the
// person signed in with, and returns where to send them: back to the
// client, with a code when approved. A grant may not exceed what who
// holds (DENIED) nor what was asked (INVALID_REQUEST).
func (s *Server) Decide(ctx context.Context, id string, who Identity, d Decision) (string, error) {
	var req request
	found, err := s.get(ctx, kindRequest, digest(id), &req)
	if err != nil {
		return "", contract.Errorf(contract.CodeUnavailable, "the authorization server's store failed: %v", err)
	}
	if !found {
		return "", contract.Errorf(contract.CodeNotFound, "this authorization request has expired or was already answered; start again from the application")
	}
	tokenID, err := s.consentingToken(who)
	if err != nil {
		return "", err
	}
	var workspaces []string
	if d.Approve {
		// Checked before the request is spent, so that the person may
		// correct their answer.
		if workspaces, err = grantable(req, who, d); err != nil {
			return "", err
		}
	}
	_, first, err := s.spend(ctx, kindRequest, digest(id))
	switch {
	case err != nil:
		return "", contract.Errorf(contract.CodeUnavailable, "the authorization server's store failed: %v", err)
	case !first:
		return "", contract.Errorf(contract.CodeInvalidRequest, "this authorization request was already answered; start again from the application")
	}
	// Answered, it is no longer pending: the consent page reloaded (or
	// reached by Back) says so instead of asking again.
	if err := s.store.Delete(ctx, kindRequest, digest(id)); err != nil {
		s.opts.Logger.Warn("oauth: removing an answered request failed", "err", err)
	}
	if !d.Approve {
		s.opts.Logger.Info("oauth: access denied by the person", "client", req.ClientID, "token", who.Name)
		return s.redirectURL(req.RedirectURI, url.Values{"error": {"access_denied"}, "error_description": {"the person signed in declined"}}, req.State), nil
	}
	now := s.opts.Now()
	// The code keeps its client from eviction until it is exchanged.
	if !req.Document {
		switch err := s.markBusy(ctx, req.ClientID, now.Add(codeTTL)); {
		case errors.Is(err, errClientGone):
			return "", contract.Errorf(contract.CodeNotFound, "%s is no longer registered here (its access was revoked meanwhile); start again from the application", req.ClientName)
		case err != nil:
			return "", contract.Errorf(contract.CodeUnavailable, "the authorization server's store failed: %v", err)
		}
	}
	g := Grant{ID: newID(), ClientID: req.ClientID, ClientName: req.ClientName, Document: req.Document, Owner: who.Name, TokenID: tokenID,
		Scopes: d.Scopes, Workspaces: workspaces, Resource: req.Resource, Created: now, LastUsed: now, Expires: now.Add(codeTTL)}
	// Until its code is exchanged a grant lives as long as the code.
	if err := s.put(ctx, kindGrant, g.ID, g, g.Expires); err != nil {
		return "", contract.Errorf(contract.CodeUnavailable, "the authorization server's store failed: %v", err)
	}
	codeValue := newSecret("ohac_")
	cr := code{GrantID: g.ID, ClientID: req.ClientID, RedirectURI: req.RedirectURI, Challenge: req.Challenge, Resource: req.Resource}
	if err := s.put(ctx, kindCode, digest(codeValue), cr, now.Add(codeTTL)); err != nil {
		return "", contract.Errorf(contract.CodeUnavailable, "the authorization server's store failed: %v", err)
	}
	s.opts.Logger.Info("oauth: access granted", "client", req.ClientID, "name", req.ClientName, "token", who.Name, "scopes", d.Scopes, "workspaces", workspaces)
	return s.redirectURL(req.RedirectURI, url.Values{"code": {codeValue}}, req.State), nil
}

// consentingToken is the TokenID of the token who signed in with, which
// must be one of those configured (when the server checks tokens).
func (s *Server) consentingToken(who Identity) (string, error) {
	if s.consenters == nil {
		return "", nil
	}
	t, ok := s.consenters[who.Name]
	if !ok {
		return "", contract.Errorf(contract.CodeDenied, "the token %s you signed in with is not one this server has configured; sign in again with one that is", who.Name)
	}
	return t.id, nil
}

// grantable checks a decision against the request and the person's
// token, and returns the grant's workspaces.
func grantable(req request, who Identity, d Decision) ([]string, error) {
	if len(d.Scopes) == 0 {
		return nil, contract.Errorf(contract.CodeInvalidRequest, "grant at least one scope, or deny")
	}
	for _, sc := range d.Scopes {
		if !slices.Contains(req.Scopes, sc) {
			return nil, contract.Errorf(contract.CodeInvalidRequest, "scope %q was not asked for by %s; grant only what it asked", sc, req.ClientName)
		}
		if who.Scopes != nil && !slices.Contains(who.Scopes, sc) {
			return nil, contract.Errorf(contract.CodeDenied, "your token %s does not hold scope %q, so it cannot grant it; sign in with a token that does, or grant less", who.Name, sc)
		}
	}
	var ws []string
	for _, w := range d.Workspaces {
		if w = strings.TrimSpace(w); w == "" || slices.Contains(ws, w) {
			continue
		}
		if err := contract.CheckWorkspace(w); err != nil {
			return nil, contract.Errorf(contract.CodeInvalidRequest, "workspaces: %v", err)
		}
		if len(who.Workspaces) > 0 && !slices.Contains(who.Workspaces, w) {
			return nil, contract.Errorf(contract.CodeDenied, "your token %s does not reach workspace %q, so it cannot grant it; it reaches %s", who.Name, w, strings.Join(who.Workspaces, ", "))
		}
		ws = append(ws, w)
	}
	if len(ws) == 0 && len(who.Workspaces) > 0 {
		ws = slices.Clone(who.Workspaces) // never wider than the token
	}
	return ws, nil
}

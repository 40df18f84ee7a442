package oauth

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/openhuman-go/openhuman-go/services/gateway/clientaddr"
)

// Dynamic client registration (RFC 7591). A registration is bounded in
// size (16 KiB, ten redirect URIs) and in number: per client address
// (RegisterLimit) and in all (MaxClients, a full store making room as
// room.go says; a client never granted is forgotten after a day anyway).
const (
	registerMaxBytes    = 16 << 10
	registerMaxRedirect = 10
	ungrantedClientTTL  = 24 * time.Hour
)

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if !s.opts.Registration {
		s.writeError(w, r, &protoError{"access_denied", "dynamic client registration is turned off on this server (auth.oauth.dynamic_registration); use a client ID metadata document URL as client_id", http.StatusForbidden})
		return
	}
	addr := clientaddr.Key(r.RemoteAddr)
	if wait := s.opts.RegisterLimit.Wait(addr); wait > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
		s.writeError(w, r, &protoError{"temporarily_unavailable", "too many registrations from your address; try again in " + strconv.Itoa(int(wait.Seconds())+1) + " seconds", http.StatusTooManyRequests})
		return
	}
	s.opts.RegisterLimit.Failed(addr) // every registration counts
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, registerMaxBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		s.writeError(w, r, &protoError{"invalid_client_metadata", "the registration is over 16 KiB", http.StatusRequestEntityTooLarge})
		return
	}
	var meta oauthex.ClientRegistrationMetadata
	if err == nil {
		err = json.Unmarshal(body, &meta)
	}
	if err != nil {
		s.writeError(w, r, &protoError{"invalid_client_metadata", "the body is not a JSON client registration: " + err.Error(), http.StatusBadRequest})
		return
	}
	c, secret, perr := s.newClient(meta)
	if perr != nil {
		s.writeError(w, r, perr)
		return
	}
	key := ""
	if c.AuthMethod == "none" {
		key = metadataKey(meta, c.AuthMethod)
		if was, found, err := s.registered(r.Context(), key); err != nil {
			s.writeError(w, r, err)
			return
		} else if found {
			s.opts.Logger.Info("oauth: client registered again with the same metadata; its registration is reused", "client", was.ID, "name", was.Name, "remote", r.RemoteAddr)
			s.writeRegistration(w, meta, was, "")
			return
		}
	}
	if wait, err := s.makeRoom(r.Context()); err != nil {
		if wait > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
		}
		s.writeError(w, r, err)
		return
	}
	if err := s.put(r.Context(), kindClient, c.ID, c, c.Created.Add(ungrantedClientTTL)); err != nil {
		s.writeError(w, r, err)
		return
	}
	if key != "" {
		if err := s.remember(r.Context(), key, c); err != nil {
			s.opts.Logger.Warn("oauth: a public client's registration is not remembered for the next one", "client", c.ID, "err", err)
		}
	}
	s.opts.Logger.Info("oauth: client registered", "client", c.ID, "name", c.Name, "remote", r.RemoteAddr)
	s.writeRegistration(w, meta, c, secret)
}

// writeRegistration answers a registration with its client.
func (s *Server) writeRegistration(w http.ResponseWriter, meta oauthex.ClientRegistrationMetadata, c Client, secret string) {
	meta.TokenEndpointAuthMethod, meta.GrantTypes, meta.ResponseTypes = c.AuthMethod, []string{"authorization_code", "refresh_token"}, []string{"code"}
	writeJSON(w, http.StatusCreated, &oauthex.ClientRegistrationResponse{ClientRegistrationMetadata: meta, ClientID: c.ID,
		ClientSecret: secret, ClientIDIssuedAt: c.Created})
}

// newClient checks a registration and makes its client, with a secret
// unless it is a public client (token_endpoint_auth_method none).
func (s *Server) newClient(m oauthex.ClientRegistrationMetadata) (Client, string, *protoError) {
	bad := func(code, msg string) (Client, string, *protoError) {
		return Client{}, "", &protoError{code, msg, http.StatusBadRequest}
	}
	if len(m.RedirectURIs) == 0 {
		return bad("invalid_redirect_uri", "redirect_uris is missing: list where the person is sent back with the code")
	}
	if len(m.RedirectURIs) > registerMaxRedirect {
		return bad("invalid_redirect_uri", "redirect_uris lists more than ten URIs")
	}
	for _, u := range m.RedirectURIs {
		if len(u) > 2000 {
			return bad("invalid_redirect_uri", "a redirect URI is over 2,000 characters")
		}
		if msg := checkRedirectURI(u); msg != "" {
			return bad("invalid_redirect_uri", msg)
		}
	}
	method := m.TokenEndpointAuthMethod
	if method == "" {
		method = "client_secret_basic" // RFC 7591's default
	}
	if !slices.Contains(authMethods, method) {
		return bad("invalid_client_metadata", "token_endpoint_auth_method "+quoteSafe(method)+" is not supported; use none, client_secret_post or client_secret_basic")
	}
	for _, g := range m.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return bad("invalid_client_metadata", "grant_types: "+quoteSafe(g)+" is not supported; this server has authorization_code and refresh_token")
		}
	}
	for _, rt := range m.ResponseTypes {
		if rt != "code" {
			return bad("invalid_client_metadata", "response_types: "+quoteSafe(rt)+" is not supported; use code")
		}
	}
	if len(m.ClientName) > 200 || len(m.ClientURI) > 2000 || len(m.Scope) > 200 {
		return bad("invalid_client_metadata", "client_name (200), client_uri (2,000) or scope (200 characters) is too long")
	}
	name := strings.TrimSpace(m.ClientName)
	if name == "" {
		name = "an unnamed client"
	}
	c := Client{ID: newID(), Name: name, URI: m.ClientURI, RedirectURIs: m.RedirectURIs, AuthMethod: method, Scope: m.Scope, Created: s.opts.Now()}
	var secret string
	if method != "none" {
		secret = newSecret("ohcs_")
		c.SecretHash = digest(secret)
	}
	return c, secret, nil
}

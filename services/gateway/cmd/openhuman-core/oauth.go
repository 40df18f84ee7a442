package main

import (
	"context"
	"log/slog"
	"net/url"
	"path/filepath"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
	"github.com/openhuman-go/openhuman-go/services/gateway/httpapi"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth/oidc"
	oauthredis "github.com/openhuman-go/openhuman-go/services/gateway/oauth/redis"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth/sqlite"
)

// newOAuth is serve's OAuth for remote clients, as cfg asks: the built-in
// authorization server over Redis (shared by the replicas) or SQLite in the
// home, or an external issuer's tokens; nil without http.public_url.
// close releases the store.
func newOAuth(cfg config.Config, log *slog.Logger) (edge *httpapi.OAuth, srv *oauth.Server, close func(), err error) {
	close = func() {}
	resource := cfg.HTTP.Resource()
	switch {
	case cfg.HTTP.PublicURL == "":
		return nil, nil, close, nil
	case cfg.Auth.OIDC.Issuer != "":
		d := cfg.Auth.OIDC
		audience := d.Audience
		if audience == "" {
			audience = resource
		}
		v := oidc.New(oidc.Options{Issuer: d.Issuer, Audience: audience, Claim: d.Claim, NameClaim: d.NameClaim, Logger: log})
		return &httpapi.OAuth{Resource: resource, Issuers: []string{d.Issuer}, Verify: v.Verify}, nil, close, nil
	case !cfg.OAuthOn():
		return nil, nil, close, nil
	}
	var store oauth.Store
	if cfg.Redis.URL != "" {
		c, err := redisconn.New(cfg.Redis.URL, cfg.Redis.Prefix, log)
		if err != nil {
			return nil, nil, close, err
		}
		store, close = oauthredis.New(c), func() { c.Close() }
	} else {
		s, err := sqlite.Open(filepath.Join(cfg.Home, "oauth.db"))
		if err != nil {
			return nil, nil, close, err
		}
		store, close = s, func() { s.Close() }
	}
	o := cfg.Auth.OAuth
	srv = oauth.New(oauth.Options{PublicURL: cfg.HTTP.PublicURL, Store: store, Registration: o.Registration(), MaxClients: o.MaxClients,
		AccessTTL: o.AccessTokenMinutes.D(), GrantTTL: time.Duration(o.RefreshTokenDays) * 24 * time.Hour, Tokens: bearerTokens(cfg.Auth.Tokens), Logger: log})
	// A grant whose consenting token was removed, replaced or narrowed in
	// config.toml ends now; one this misses (the store unreachable) ends
	// at its next use.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := srv.RevokeOrphans(ctx); err != nil {
		log.Error("oauth: grants could not be checked against the configured tokens; each is checked at its next use", "err", err)
	}
	return &httpapi.OAuth{Resource: resource, Issuers: []string{srv.Issuer()}, Verify: srv.Verify, Server: srv.Handler()}, srv, close, nil
}

// bearerTokens are the configured tokens as the authorization server
// checks grants against them.
func bearerTokens(tokens []config.Token) []oauth.BearerToken {
	out := make([]oauth.BearerToken, 0, len(tokens))
	for _, t := range tokens {
		out = append(out, oauth.BearerToken{Name: t.Name, SHA256: t.SHA256, Scopes: t.Scopes, Workspaces: t.Workspaces})
	}
	return out
}

// publicHost is public_url's host name, which Host and Origin may carry.
func publicHost(cfg config.Config) []string {
	u, err := url.Parse(cfg.HTTP.PublicURL)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	return []string{u.Hostname()}
}

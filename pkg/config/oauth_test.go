package config

import (
	"strings"
	"testing"
	"time"
)

func TestOAuthSettings(t *testing.T) {
	tok := "OPENHUMAN_API_TOKEN"
	secret := "oh_secret-long-enough-to-keep-out"
	t.Run("public_url turns the built-in server on", func(t *testing.T) {
		c, err := Load(t.TempDir(), env(map[string]string{"OPENHUMAN_HTTP_PUBLIC_URL": "https://memory.example.com/", tok: secret}))
		if err != nil {
			t.Fatal(err)
		}
		if !c.OAuthOn() || c.HTTP.PublicURL != "https://memory.example.com" || c.HTTP.Resource() != "https://memory.example.com/mcp" || !c.Auth.OAuth.Registration() {
			t.Errorf("on %v, url %q, resource %q", c.OAuthOn(), c.HTTP.PublicURL, c.HTTP.Resource())
		}
		if c.Auth.OAuth.AccessTokenMinutes.D() != 15*time.Minute || c.Auth.OAuth.RefreshTokenDays != 30 || c.Auth.OAuth.MaxClients != 1000 {
			t.Errorf("defaults %+v", c.Auth.OAuth)
		}
	})
	t.Run("off without public_url, or when turned off, or with an issuer", func(t *testing.T) {
		for _, vars := range []map[string]string{
			{},
			{"OPENHUMAN_HTTP_PUBLIC_URL": "https://m.example.com", "OPENHUMAN_OAUTH_ENABLED": "false"},
			{"OPENHUMAN_HTTP_PUBLIC_URL": "https://m.example.com", "OPENHUMAN_OIDC_ISSUER": "https://auth.example.com/realms/x"},
		} {
			vars[tok] = secret
			c, err := Load(t.TempDir(), env(vars))
			if err != nil {
				t.Fatal(err)
			}
			if c.OAuthOn() {
				t.Errorf("on with %v", vars)
			}
		}
	})
	for _, tc := range []struct {
		name string
		vars map[string]string
		want string
	}{
		{"plain http on a public host", map[string]string{"OPENHUMAN_HTTP_PUBLIC_URL": "http://memory.example.com", tok: secret}, "reverse proxy with TLS"},
		{"a path", map[string]string{"OPENHUMAN_HTTP_PUBLIC_URL": "https://memory.example.com/mcp", tok: secret}, "origin alone"},
		{"no scheme", map[string]string{"OPENHUMAN_HTTP_PUBLIC_URL": "memory.example.com", tok: secret}, "http.public_url"},
		{"no token to sign in with", map[string]string{"OPENHUMAN_HTTP_PUBLIC_URL": "http://127.0.0.1:9300"}, "token new NAME"},
		{"an issuer without public_url", map[string]string{"OPENHUMAN_OIDC_ISSUER": "https://auth.example.com", tok: secret}, "needs http.public_url"},
		{"an issuer over http", map[string]string{"OPENHUMAN_OIDC_ISSUER": "http://auth.example.com", "OPENHUMAN_HTTP_PUBLIC_URL": "https://m.example.com", tok: secret}, "auth.oidc.issuer"},
		{"endless access tokens", map[string]string{"OPENHUMAN_OAUTH_ACCESS_TOKEN_MINUTES": "100000", tok: secret}, "access_token_minutes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(t.TempDir(), env(tc.vars))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one saying %q", err, tc.want)
			}
		})
	}
	t.Run("plain http on loopback, to test", func(t *testing.T) {
		c, err := Load(t.TempDir(), env(map[string]string{"OPENHUMAN_HTTP_PUBLIC_URL": "http://127.0.0.1:9300", tok: secret}))
		if err != nil || !c.OAuthOn() {
			t.Fatalf("%v %v", err, c.OAuthOn())
		}
	})
}

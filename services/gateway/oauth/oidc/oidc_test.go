package oidc_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth/oidc"
)

// issuer is a local OpenID provider as Keycloak or Auth0 answer: discovery
// and a JWKS of keys it makes, which it can rotate.
type issuer struct {
	url       string
	mu        sync.Mutex
	keys      map[string]*ecdsa.PrivateKey
	current   string
	jwksFetch atomic.Int32
}

func newIssuer(t *testing.T) *issuer {
	is := &issuer{keys: map[string]*ecdsa.PrivateKey{}}
	is.rotate("k1")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			_ = json.NewEncoder(w).Encode(map[string]any{"issuer": is.url, "jwks_uri": is.url + "/jwks", "authorization_endpoint": is.url + "/auth",
				"token_endpoint": is.url + "/token", "response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"}})
		case "/jwks":
			is.jwksFetch.Add(1)
			is.mu.Lock()
			var set jose.JSONWebKeySet
			for kid, k := range is.keys {
				set.Keys = append(set.Keys, jose.JSONWebKey{Key: &k.PublicKey, KeyID: kid, Algorithm: "ES256", Use: "sig"})
			}
			is.mu.Unlock()
			_ = json.NewEncoder(w).Encode(set)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	is.url = srv.URL
	return is
}

// rotate makes kid the signing key, dropping the others from the JWKS.
func (is *issuer) rotate(kid string) {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	is.mu.Lock()
	is.keys = map[string]*ecdsa.PrivateKey{kid: k}
	is.current = kid
	is.mu.Unlock()
}

func sign(t *testing.T, key *ecdsa.PrivateKey, kid string, claims map[string]any) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", kid))
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(claims)
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := jws.CompactSerialize()
	return s
}

func (is *issuer) token(t *testing.T, claims map[string]any) string {
	is.mu.Lock()
	key, kid := is.keys[is.current], is.current
	is.mu.Unlock()
	return sign(t, key, kid, claims)
}

const resource = "https://memory.example.com/mcp"

func claims(is *issuer, over map[string]any) map[string]any {
	c := map[string]any{"iss": is.url, "aud": resource, "sub": "alice", "exp": time.Now().Add(5 * time.Minute).Unix(),
		"iat": time.Now().Unix(), "scope": "openid read act workspace:work"}
	for k, v := range over {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

func TestVerifier(t *testing.T) {
	is := newIssuer(t)
	v := oidc.New(oidc.Options{Issuer: is.url, Audience: resource})
	ctx := context.Background()
	who, err := v.Verify(ctx, is.token(t, claims(is, nil)))
	if err != nil || who.Name != "oidc:alice" || !slices.Equal(who.Scopes, []string{"read", "act"}) || !slices.Equal(who.Workspaces, []string{"work"}) {
		t.Fatalf("%+v %v", who, err)
	}
	who, err = v.Verify(ctx, is.token(t, claims(is, map[string]any{"scope": []any{"read"}})))
	if err != nil || !slices.Equal(who.Scopes, []string{"read"}) || len(who.Workspaces) != 0 {
		t.Fatalf("a list claim, every workspace: %+v %v", who, err)
	}
	for name, tc := range map[string]struct {
		token string
		want  string
	}{
		"for another resource": {is.token(t, claims(is, map[string]any{"aud": "https://other.example/mcp"})), "audience"},
		"expired":              {is.token(t, claims(is, map[string]any{"exp": time.Now().Add(-time.Minute).Unix()})), "expired"},
		"another issuer":       {is.token(t, claims(is, map[string]any{"iss": "https://evil.example"})), "different provider"},
		"no scope of ours":     {is.token(t, claims(is, map[string]any{"scope": "openid profile"})), "neither read nor act"},
		"no subject":           {is.token(t, claims(is, map[string]any{"sub": nil})), "no sub claim"},
		"signed by a stranger": {func() string {
			k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			return sign(t, k, "k1", claims(is, nil))
		}(), "signature"},
		"unsigned":  {unsigned(claims(is, nil)), "unexpected signature algorithm"},
		"not a JWT": {"ohat_opaque", ""},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := v.Verify(ctx, tc.token)
			if !errors.Is(err, oauth.ErrInvalidToken) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want invalid token saying %q", err, tc.want)
			}
		})
	}
	t.Run("the issuer rotates its key", func(t *testing.T) {
		before := is.jwksFetch.Load()
		is.rotate("k2")
		clock := time.Now().Add(2 * time.Minute) // past the minute between fetches
		v := oidc.New(oidc.Options{Issuer: is.url, Audience: resource, Now: func() time.Time { return clock }})
		if _, err := v.Verify(ctx, is.token(t, claims(is, map[string]any{"exp": clock.Add(time.Minute).Unix()}))); err != nil {
			t.Fatal(err)
		}
		clock = clock.Add(2 * time.Minute)
		is.rotate("k3")
		if _, err := v.Verify(ctx, is.token(t, claims(is, map[string]any{"exp": clock.Add(time.Minute).Unix()}))); err != nil {
			t.Fatalf("a token of the new key after a rotation: %v", err)
		}
		// Tokens naming unknown keys, many at once, fetch the set once a minute at most.
		fetched := is.jwksFetch.Load()
		for range 20 {
			k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			_, _ = v.Verify(ctx, sign(t, k, "nobody", claims(is, map[string]any{"exp": clock.Add(time.Minute).Unix()})))
		}
		if n := is.jwksFetch.Load() - fetched; n != 0 {
			t.Errorf("20 tokens with unknown keys fetched the key set %d times within the minute, want 0", n)
		}
		if before == is.jwksFetch.Load() {
			t.Error("the key set was never fetched")
		}
	})
}

// unsigned is a JWT with alg none.
func unsigned(claims map[string]any) string {
	b, _ := json.Marshal(claims)
	return "eyJhbGciOiJub25lIn0." + base64.RawURLEncoding.EncodeToString(b) + "."
}

package oidc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
)

// keySet is the issuer's JWKS, cached: fetched again an hour after the
// last fetch, or when a token names a key it lacks (the issuer rotated)
// but at most once a minute, so tokens naming keys nobody has cannot make
// the gateway hammer the issuer.
type keySet struct {
	url    string
	client *http.Client
	now    func() time.Time
	log    *slog.Logger
	mu     sync.Mutex
	keys   jose.JSONWebKeySet
	at     time.Time // last successful fetch
	tried  time.Time // last fetch, whatever came of it
}

var _ gooidc.KeySet = (*keySet)(nil)

const (
	keysMaxAge   = time.Hour
	keysMinFetch = time.Minute
	keysMaxBytes = 1 << 20
)

func newKeySet(url string, client *http.Client, now func() time.Time, log *slog.Logger) *keySet {
	return &keySet{url: url, client: client, now: now, log: log}
}

var algs = func() []jose.SignatureAlgorithm {
	var out []jose.SignatureAlgorithm
	for _, a := range signingAlgs {
		out = append(out, jose.SignatureAlgorithm(a))
	}
	return out
}()

// VerifySignature checks jwt's signature with the key it names and
// returns its payload.
func (k *keySet) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	jws, err := jose.ParseSigned(jwt, algs)
	if err != nil {
		return nil, fmt.Errorf("not a JWS signed with an accepted algorithm: %v", err)
	}
	if len(jws.Signatures) != 1 {
		return nil, errors.New("a token must carry exactly one signature")
	}
	kid := jws.Signatures[0].Header.KeyID
	keys, err := k.current(ctx, kid, false)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		// Perhaps the issuer rotated: ask again, if not just asked.
		if keys, err = k.current(ctx, kid, true); err != nil {
			return nil, err
		}
	}
	for _, key := range keys {
		if payload, err := jws.Verify(key); err == nil {
			return payload, nil
		}
	}
	return nil, fmt.Errorf("no key of the issuer's (kid %q) verifies the token's signature", kid)
}

// current returns the keys with kid (all when kid is empty), fetching the
// set when it is stale, or when refresh asks and a minute has passed.
func (k *keySet) current(ctx context.Context, kid string, refresh bool) ([]jose.JSONWebKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	stale := k.at.IsZero() || now.Sub(k.at) > keysMaxAge
	if (stale || refresh) && now.Sub(k.tried) >= keysMinFetch {
		k.tried = now
		if set, err := k.fetch(ctx); err != nil {
			k.log.Warn("oidc: fetching the issuer's keys failed", "jwks", k.url, "err", err)
			if k.at.IsZero() {
				return nil, fmt.Errorf("the issuer's keys could not be fetched: %v", err)
			}
		} else {
			k.keys, k.at = set, now
		}
	}
	if kid == "" {
		return k.keys.Keys, nil
	}
	return k.keys.Key(kid), nil
}

func (k *keySet) fetch(ctx context.Context) (jose.JSONWebKeySet, error) {
	var set jose.JSONWebKeySet
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return set, err
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return set, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return set, fmt.Errorf("%s answered %d", k.url, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, keysMaxBytes))
	if err != nil {
		return set, err
	}
	return set, json.Unmarshal(body, &set)
}

// Package providers calls the web search APIs: SearXNG (self-hosted),
// Brave, Tavily, Exa, and Gemini with Google Search grounding. Each turns
// its API's answers and failures into search.Result values and
// *search.ProviderError values a person can act on.
package providers

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/httpjson"
	"github.com/openhuman-go/openhuman-go/services/search"
)

// MaxBody bounds an API answer; a larger one is refused as malformed.
const MaxBody = 4 << 20

// client is an HTTP client for one provider. Search fails over to the next
// provider instead of retrying, so each call is tried once.
func client(service string, timeout time.Duration) *httpjson.Client {
	return &httpjson.Client{Service: service, HTTP: &http.Client{Timeout: timeout}, Attempts: 1, MaxBody: MaxBody}
}

// classify turns a call failure into a ProviderError. keyHint says how to
// fix a rejected key ("" when the provider takes none).
func classify(name string, err error, keyHint string) *search.ProviderError {
	var e *httpjson.Error
	if !errors.As(err, &e) {
		return search.Errf(name, search.Transient, 0, "%v", err)
	}
	msg := e.Error()
	switch {
	case e.Malformed:
		return search.Errf(name, search.Malformed, e.Status, "%s", msg)
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden,
		// Brave answers 422 to a bad token and to a bad request alike,
		// Gemini 400 to a bad key and to a bad request alike.
		(e.Status == http.StatusUnprocessableEntity || e.Status == http.StatusBadRequest) && aboutKey(e.Message):
		return withRetryAfter(search.Errf(name, search.Auth, e.Status, "%s", hint(msg, keyHint)), e.Header)
	case e.Status == http.StatusPaymentRequired || e.Status == 432 || e.Status == 433:
		return withRetryAfter(search.Errf(name, search.Quota, e.Status, "%s; the plan's quota is used up", msg), e.Header)
	case e.Status == http.StatusTooManyRequests:
		if reset := e.Header.Get("X-RateLimit-Reset"); reset != "" {
			msg += " (rate limit resets in " + strings.TrimSpace(strings.Split(reset, ",")[0]) + " s)"
		}
		return search.Errf(name, search.Transient, e.Status, "%s", msg)
	case e.Status == http.StatusBadRequest || e.Status == http.StatusUnprocessableEntity:
		// This request was refused; the next one may not be.
		return search.Errf(name, search.Transient, e.Status, "%s", msg)
	case e.Status >= 400 && e.Status < 500:
		// A wrong base URL or model: retrying soon cannot help.
		return withRetryAfter(search.Errf(name, search.Auth, e.Status, "%s; check search.providers.%s.base_url and model", msg, name), e.Header)
	}
	return search.Errf(name, search.Transient, e.Status, "%s", msg)
}

// withRetryAfter sets how long the provider asked us to wait: Retry-After in
// seconds or as an HTTP date.
func withRetryAfter(pe *search.ProviderError, h http.Header) *search.ProviderError {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return pe
	}
	if s, err := strconv.Atoi(v); err == nil && s > 0 {
		pe.RetryAfter = time.Duration(s) * time.Second
	} else if t, err := http.ParseTime(v); err == nil && time.Until(t) > 0 {
		pe.RetryAfter = time.Until(t).Round(time.Second)
	}
	return pe
}

func aboutKey(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "key") || strings.Contains(m, "token") || strings.Contains(m, "subscription")
}

func hint(msg, h string) string {
	if h == "" {
		return msg
	}
	return msg + "; " + h
}

func trimSlash(u string) string { return strings.TrimSuffix(u, "/") }

// Package search is the search service's domain: web search through
// configured providers in order, with fallback, circuit breakers, a cache,
// rate limits and merged results, and grounded answers. Providers, caches
// and limiters are behind interfaces; their adapters live in their own
// packages. It imports only the standard library and pkg/contract.
package search

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Query is a search request.
type Query struct {
	Text       string
	MaxResults int
	Language   string
	Deep       bool // web_answer depth=deep: providers may search harder
}

// The web tools' results are declared in pkg/contract, where their output
// schemas are generated from them: Result is one web page found, Citation
// a source an answer cites as [n], Skip says why a provider was passed
// over, and Page is what the web tools return.
type (
	Result   = contract.WebResult
	Citation = contract.WebCitation
	Skip     = contract.ProviderSkip
	Page     = contract.WebPage
)

// Provider searches the web. Failures are *ProviderError.
type Provider interface {
	Name() string
	Search(ctx context.Context, q Query) ([]Result, error)
}

// Answer is a grounded answer: Text cites Citations as [n].
type Answer struct {
	Text      string
	Citations []Citation
	Results   []Result
	Model     string
}

// Answerer writes grounded answers (Gemini with Google Search, Tavily).
type Answerer interface {
	Name() string
	Answer(ctx context.Context, q Query) (*Answer, error)
}

// Writer writes an answer from numbered snippets, citing them as [n]: a
// language model. It returns *contract.Error values.
type Writer interface {
	Model() string
	Write(ctx context.Context, question string, sources []string) (string, error)
}

// Kind classifies a provider failure, which decides what happens next.
type Kind int

const (
	// Transient failures (timeouts, 5xx, 429, network, an answer of only
	// unresponsive engines) count toward the provider's circuit breaker.
	Transient Kind = iota + 1
	// Auth failures (a rejected key, SearXNG with JSON disabled, a wrong
	// base URL or model) disable the provider: retrying at once cannot
	// help. After Options.AuthCooldown (or the provider's Retry-After) one
	// probe call finds out whether someone fixed it.
	Auth
	// Quota failures (402, Tavily's 432/433) disable the provider for
	// its Retry-After, or Options.QuotaCooldown when it gives none.
	Quota
	// Malformed answers count like transient ones.
	Malformed
)

// ProviderError is a provider's failure, with a message a person can act on.
type ProviderError struct {
	Provider string
	Kind     Kind
	Status   int
	Message  string
	// RetryAfter is how long the provider asked us to wait (its
	// Retry-After header), 0 when it did not say.
	RetryAfter time.Duration
}

func (e *ProviderError) Error() string { return e.Provider + ": " + e.Message }

// Errf builds a ProviderError.
func Errf(provider string, kind Kind, status int, format string, args ...any) *ProviderError {
	return &ProviderError{Provider: provider, Kind: kind, Status: status, Message: fmt.Sprintf(format, args...)}
}

// toContract turns a failure into a contract error for callers; when the
// failure disabled the provider, the message says until when.
func toContract(err error, disabledUntil, now time.Time) *contract.Error {
	pe, ok := errors.AsType[*ProviderError](err)
	if !ok {
		return contract.AsError(err)
	}
	msg := pe.Error()
	if !disabledUntil.IsZero() {
		msg += "; disabled, " + nextTry(now, disabledUntil)
	}
	// DENIED is for our own policy; a provider refusing us is a failed
	// dependency, reported as a tool failure with its reason.
	if pe.Kind == Quota || pe.Status == 429 {
		return contract.Errorf(contract.CodeRateLimited, "%s", msg).With("provider", pe.Provider)
	}
	return contract.Errorf(contract.CodeUnavailable, "%s", msg).With("provider", pe.Provider)
}

func clampMax(n int) int {
	switch {
	case n <= 0:
		return contract.DefaultSearchResults
	case n > contract.MaxSearchResults:
		return contract.MaxSearchResults
	}
	return n
}

// normalizeQuery makes equivalent queries one cache key.
func normalizeQuery(q string) string { return strings.Join(strings.Fields(strings.ToLower(q)), " ") }

// now is replaceable in tests of breaker timing.
type clock func() time.Time

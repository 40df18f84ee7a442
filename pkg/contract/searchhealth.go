package contract

// Search provider states, as the search service reports them.
const (
	ProviderClosed        = "closed"         // healthy: calls go through
	ProviderHalfOpen      = "half_open"      // after a cooldown: one probe call decides
	ProviderOpen          = "open"           // too many failures in a row: skipped until its cooldown ends
	ProviderDisabled      = "disabled"       // a rejected key or an exhausted quota: skipped until its re-probe time
	ProviderNotConfigured = "not_configured" // named in a role but without a key or URL
)

// SearchProvider is one search provider's health, as the search service
// sees it from the calls it made.
type SearchProvider struct {
	Name string `json:"name"`
	// Roles are the roles it is configured in: search, answer.
	Roles []string `json:"roles"`
	// State is one of the Provider* states.
	State string `json:"state"`
	// Reachable is true when its last call answered, false when it failed,
	// and absent when it has not been called since the service started.
	Reachable *bool `json:"reachable,omitempty"`
	// Detail says why, in a sentence a person can act on, and when it is
	// tried again.
	Detail string `json:"detail"`
	// RetryAt is when an open or disabled provider is tried again (RFC 3339).
	RetryAt string `json:"retry_at,omitempty"`
}

// Usable reports whether the provider is configured and not skipped now.
func (p SearchProvider) Usable() bool {
	return p.State == ProviderClosed || p.State == ProviderHalfOpen
}

// SearchHealth is the search service's answer to SearchHealthEndpoint.
type SearchHealth struct {
	// Providers lists every provider a role names, configured or not.
	Providers []SearchProvider `json:"providers"`
	// Tools maps each web tool offered to the providers it may use, in the
	// order it tries them.
	Tools map[string][]string `json:"tools"`
}

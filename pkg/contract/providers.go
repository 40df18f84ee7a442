package contract

// CapabilityProvider is a trusted source of external tools, recorded for
// governance: the registry reports it, nothing is installed or run.
type CapabilityProvider struct {
	ID           string `toml:"id" json:"id"` // normalized like an MCP client name at load
	DisplayName  string `toml:"display_name" json:"display_name"`
	SourceURI    string `toml:"source_uri" json:"source_uri"`
	SourceDigest string `toml:"source_digest" json:"source_digest"`
	TrustState   string `toml:"trust_state" json:"trust_state"` // trusted, untrusted, revoked
	Enabled      bool   `toml:"enabled" json:"enabled"`
}

// Eligible reports whether the provider may be admitted: enabled and trusted.
func (p CapabilityProvider) Eligible() bool { return p.Enabled && p.TrustState == "trusted" }

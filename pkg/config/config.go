// Package config loads the one configuration struct every binary uses: defaults,
// then $OPENHUMAN_HOME/config.toml, then OPENHUMAN_* environment variables.
// The result is validated at load, so a mistake is reported at start with the
// key that caused it, not at the first call that trips over it.
package config

import (
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Config is everything a binary may be told.
type Config struct {
	// Home holds the SQLite file and config.toml (OPENHUMAN_HOME, --home).
	Home string `toml:"-"`
	// File is the config.toml that was read, "" when none exists.
	File string `toml:"-"`

	NATS     NATS     `toml:"nats"`
	Log      Log      `toml:"log"`
	Memory   Memory   `toml:"memory"`
	Tools    Tools    `toml:"tools"`
	HTTP     HTTP     `toml:"http"`
	Metrics  Metrics  `toml:"metrics"`
	LLM      LLM      `toml:"llm"`
	MCP      MCP      `toml:"mcp"`
	Search   Search   `toml:"search"`
	SearXNG  SearXNG  `toml:"searxng"`
	Redis    Redis    `toml:"redis"`
	Policy   Policy   `toml:"policy"`
	Audit    Audit    `toml:"audit"`
	Approval Approval `toml:"approval"`
	Agents   Agents   `toml:"agents"`
	// CapabilityProviders are trusted external tool sources, recorded for
	// governance only: they install and run nothing.
	CapabilityProviders []contract.CapabilityProvider `toml:"capability_providers"`
}

// HTTP configures `openhuman-core serve`.
type HTTP struct {
	// Addr is where serve listens (default 127.0.0.1:9300).
	Addr string `toml:"addr"` // OPENHUMAN_HTTP_ADDR, serve --addr
	// SessionIdleMinutes ends an MCP-over-HTTP session unused this long (default 30).
	SessionIdleMinutes int `toml:"session_idle_minutes"` // OPENHUMAN_HTTP_SESSION_IDLE_MINUTES
	// AllowedHosts are extra Host/Origin host names accepted besides
	// localhost, for a gateway reached by name (DNS-rebinding protection
	// refuses every other).
	AllowedHosts []string `toml:"allowed_hosts"` // OPENHUMAN_HTTP_ALLOWED_HOSTS (comma-separated)
}

// SessionIdle is how long an idle MCP-over-HTTP session lives.
func (h HTTP) SessionIdle() time.Duration { return time.Duration(h.SessionIdleMinutes) * time.Minute }

// Metrics configures the /metrics listener of a service binary; the
// gateway serves /metrics on its own HTTP address.
type Metrics struct {
	// Addr to listen on; "off" disables it. The default depends on the binary.
	Addr string `toml:"addr"` // OPENHUMAN_METRICS_ADDR
}

// NATS says where the bus is. An empty URL means embedded mode: the gateway
// starts its own in-process server and services.
type NATS struct {
	URL string `toml:"url"` // OPENHUMAN_NATS_URL
}

// Log sets the log level: debug, info, warn or error.
type Log struct {
	Level string `toml:"level"` // OPENHUMAN_LOG_LEVEL
}

// Memory configures the memory service.
type Memory struct {
	// Enabled false turns memory off: its tools answer MEMORY_OFF.
	Enabled *bool `toml:"enabled"` // OPENHUMAN_MEMORY_ENABLED
	// Path of the SQLite database; default <home>/memory.db.
	Path       string     `toml:"path"` // OPENHUMAN_MEMORY_PATH
	Embeddings Embeddings `toml:"embeddings"`
}

// Embeddings chooses the embedder of memory's vector leg.
type Embeddings struct {
	// Provider is hash (built in, offline; the default), openai (any
	// OpenAI-compatible /v1/embeddings: OpenAI, Ollama, llama.cpp, vLLM) or
	// ollama (Ollama's /api/embed).
	Provider string `toml:"provider"` // OPENHUMAN_EMBEDDINGS_PROVIDER
	BaseURL  string `toml:"base_url"` // OPENHUMAN_EMBEDDINGS_BASE_URL
	Model    string `toml:"model"`    // OPENHUMAN_EMBEDDINGS_MODEL
	APIKey   string `toml:"api_key"`  // OPENHUMAN_EMBEDDINGS_API_KEY
	// BatchSize is how many texts go in one request (default 64).
	BatchSize int `toml:"batch_size"`
	// TimeoutSeconds bounds one request (default 30).
	TimeoutSeconds int `toml:"timeout_seconds"`
	// Dim is the hash embedder's dimension (default 256).
	Dim int `toml:"dim"`
}

// Timeout bounds one embedding request.
func (e Embeddings) Timeout() time.Duration { return time.Duration(e.TimeoutSeconds) * time.Second }

// LLM is an OpenAI-compatible chat completions endpoint (OpenAI, Ollama at
// http://localhost:11434/v1, llama.cpp server, vLLM, OpenRouter). Without a
// model, features that need one say so instead of pretending.
type LLM struct {
	BaseURL        string `toml:"base_url"`        // OPENHUMAN_LLM_BASE_URL
	Model          string `toml:"model"`           // OPENHUMAN_LLM_MODEL
	APIKey         string `toml:"api_key"`         // OPENHUMAN_LLM_API_KEY
	TimeoutSeconds int    `toml:"timeout_seconds"` // OPENHUMAN_LLM_TIMEOUT_SECONDS (default 60)
}

// Configured reports whether a model is set.
func (l LLM) Configured() bool { return l.Model != "" }

// Timeout bounds one chat completion.
func (l LLM) Timeout() time.Duration { return time.Duration(l.TimeoutSeconds) * time.Second }

// On reports whether memory is enabled (the default).
func (m Memory) On() bool { return m.Enabled == nil || *m.Enabled }

// Search configures the web tools.
type Search struct {
	// Enabled false turns the search service off (OPENHUMAN_SEARCH_ENABLED).
	Enabled *bool `toml:"enabled"`
	// CacheTTLMinutes keeps results this long (default 10).
	CacheTTLMinutes int         `toml:"cache_ttl_minutes"`
	Roles           SearchRoles `toml:"roles"`
	// Providers are searxng, brave, tavily, exa and gemini.
	Providers map[string]SearchProvider `toml:"providers"`
}

// On reports whether search is enabled (the default).
func (s Search) On() bool { return s.Enabled == nil || *s.Enabled }

// SearchRoles order the providers tried for each role.
type SearchRoles struct {
	Search []string `toml:"search"` // default searxng, brave, tavily, exa
	Answer []string `toml:"answer"` // default gemini, tavily
}

// SearchProvider configures one provider. A provider is used when it is not
// disabled and has what it needs: an API key, or for SearXNG [searxng].
type SearchProvider struct {
	Enabled *bool `toml:"enabled"`
	// Route is how calls reach it; only "direct" exists.
	Route   string `toml:"route"`
	APIKey  string `toml:"api_key"`  // OPENHUMAN_<PROVIDER>_API_KEY
	BaseURL string `toml:"base_url"` // OPENHUMAN_<PROVIDER>_BASE_URL, for a proxy or a self-hosted gateway
	Model   string `toml:"model"`    // gemini: the model answering (default gemini-2.5-flash)
	// TimeoutSeconds bounds one call (default 10).
	TimeoutSeconds int `toml:"timeout_seconds"`
	// RatePerMinute and Burst limit our calls (0: no limit of ours).
	RatePerMinute int `toml:"rate_per_minute"`
	Burst         int `toml:"burst"`
}

// On reports whether the provider is not disabled.
func (p SearchProvider) On() bool { return p.Enabled == nil || *p.Enabled }

// SearXNG is the self-hosted SearXNG instance, as the original documents it.
type SearXNG struct {
	Enabled         bool   `toml:"enabled"`          // OPENHUMAN_SEARXNG_ENABLED
	BaseURL         string `toml:"base_url"`         // OPENHUMAN_SEARXNG_BASE_URL
	MaxResults      int    `toml:"max_results"`      // OPENHUMAN_SEARXNG_MAX_RESULTS (default 10)
	DefaultLanguage string `toml:"default_language"` // OPENHUMAN_SEARXNG_DEFAULT_LANGUAGE (default en)
	TimeoutSeconds  int    `toml:"timeout_seconds"`  // OPENHUMAN_SEARXNG_TIMEOUT_SECONDS (default 10)
}

// Redis is shared state for replicas: the search cache and rate limits.
// Without a URL they are kept in each process.
type Redis struct {
	URL    string `toml:"url"`    // OPENHUMAN_REDIS_URL, e.g. redis://127.0.0.1:6379/0
	Prefix string `toml:"prefix"` // OPENHUMAN_REDIS_PREFIX: key prefix (default "openhuman:")
}

// UsableSearchProviders names the providers that are not disabled and
// have what they need: an API key, or for SearXNG [searxng] enabled with a
// base URL. Search uses exactly these; the others are ignored.
func (c Config) UsableSearchProviders() []string {
	if !c.Search.On() {
		return nil
	}
	var out []string
	for _, name := range SearchProviders {
		p, listed := c.Search.Providers[name]
		if listed && !p.On() {
			continue
		}
		if name == "searxng" {
			if c.SearXNG.Enabled && c.SearXNG.BaseURL != "" {
				out = append(out, name)
			}
			continue
		}
		if p.APIKey != "" {
			out = append(out, name)
		}
	}
	return out
}

// Policy is the act gate of memory.learn, memory.forget and
// agent.run_subagent.
type Policy struct {
	// Autonomy is full (the default) or readonly (OPENHUMAN_AUTONOMY).
	Autonomy string `toml:"autonomy"`
	// MaxActionsPerHour is the action budget (0: none;
	// OPENHUMAN_MAX_ACTIONS_PER_HOUR).
	MaxActionsPerHour int `toml:"max_actions_per_hour"`
}

// Audit is the trail of writes.
type Audit struct {
	Enabled *bool  `toml:"enabled"` // default true
	Path    string `toml:"path"`    // default <home>/audit.db
	MaxRows int    `toml:"max_rows"`
}

// On reports whether writes are audited (the default).
func (a Audit) On() bool { return a.Enabled == nil || *a.Enabled }

// Approval gates sub-agents' side effects.
type Approval struct {
	// Mode is auto (the default: allowed and audited), deny, or ask (parked
	// until decided over openhuman.approval_decide). OPENHUMAN_APPROVAL_MODE.
	Mode string `toml:"mode"`
	// TimeoutSeconds denies a parked call nobody decided (default 300).
	TimeoutSeconds int `toml:"timeout_seconds"`
}

// Timeout is how long a parked call waits.
func (a Approval) Timeout() time.Duration { return time.Duration(a.TimeoutSeconds) * time.Second }

// Agents configures sub-agent runs.
type Agents struct {
	// TimeoutSeconds bounds one run, tools included (default 300).
	TimeoutSeconds int `toml:"timeout_seconds"`
	// MaxToolResultBytes caps a tool result fed back to the model (default 16384).
	MaxToolResultBytes int `toml:"max_tool_result_bytes"`
	// Models names a model per sub-agent id instead of [llm] model.
	Models map[string]string `toml:"models"`
}

// Timeout bounds one run.
func (a Agents) Timeout() time.Duration { return time.Duration(a.TimeoutSeconds) * time.Second }

// SearchProviders are the provider names search knows.
var SearchProviders = []string{"searxng", "brave", "tavily", "exa", "gemini"}

// MCP configures `openhuman-core mcp`.
type MCP struct {
	// Profile is the tool surface: v2 (the default) or v1, the older
	// read-only memory tree. `mcp --profile` overrides it.
	Profile string `toml:"profile"` // OPENHUMAN_MCP_PROFILE
}

// Tools configures tool calls.
type Tools struct {
	// TimeoutSeconds bounds one tool call end to end (default 30).
	TimeoutSeconds int `toml:"timeout_seconds"` // OPENHUMAN_TOOL_TIMEOUT_SECONDS
}

// Timeout is the tool call deadline.
func (t Tools) Timeout() time.Duration { return time.Duration(t.TimeoutSeconds) * time.Second }

// Package config loads the one configuration struct every binary uses: defaults,
// then $OPENHUMAN_HOME/config.toml, then OPENHUMAN_* environment variables.
// The result is validated at load, so a mistake is reported at start with the
// key that caused it, not at the first call that trips over it.
package config

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

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

// Load reads the configuration. home overrides OPENHUMAN_HOME when not empty;
// getenv is os.Getenv outside tests.
func Load(home string, getenv func(string) string) (Config, error) {
	var c Config
	c.Home = home
	if c.Home == "" {
		c.Home = getenv("OPENHUMAN_HOME")
	}
	if c.Home == "" {
		dir, err := os.UserHomeDir()
		if err != nil {
			return c, fmt.Errorf("no home directory to keep memory in: set OPENHUMAN_HOME or pass --home: %w", err)
		}
		c.Home = filepath.Join(dir, ".openhuman")
	}
	if strings.HasPrefix(c.Home, "~/") {
		if dir, err := os.UserHomeDir(); err == nil {
			c.Home = filepath.Join(dir, c.Home[2:])
		}
	}
	file := getenv("OPENHUMAN_CONFIG")
	if file == "" {
		file = filepath.Join(c.Home, "config.toml")
	}
	if err := c.readFile(file); err != nil {
		return c, err
	}
	if err := c.readEnv(getenv); err != nil {
		return c, err
	}
	c.applyDefaults()
	return c, c.validate()
}

func (c *Config) readFile(path string) error {
	md, err := toml.DecodeFile(path, c)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	c.File = path
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		keys := make([]string, len(undecoded))
		for i, k := range undecoded {
			keys[i] = k.String()
		}
		return fmt.Errorf("%s: unknown key %s: check the spelling against the README's configuration section", path, strings.Join(keys, ", "))
	}
	return nil
}

func (c *Config) readEnv(getenv func(string) string) error {
	str := func(key string, dst *string) {
		if v := getenv(key); v != "" {
			*dst = v
		}
	}
	str("OPENHUMAN_NATS_URL", &c.NATS.URL)
	str("OPENHUMAN_LOG_LEVEL", &c.Log.Level)
	str("OPENHUMAN_MEMORY_PATH", &c.Memory.Path)
	str("OPENHUMAN_HTTP_ADDR", &c.HTTP.Addr)
	str("OPENHUMAN_MCP_PROFILE", &c.MCP.Profile)
	str("OPENHUMAN_REDIS_URL", &c.Redis.URL)
	str("OPENHUMAN_AUTONOMY", &c.Policy.Autonomy)
	str("OPENHUMAN_APPROVAL_MODE", &c.Approval.Mode)
	str("OPENHUMAN_REDIS_PREFIX", &c.Redis.Prefix)
	str("OPENHUMAN_SEARXNG_BASE_URL", &c.SearXNG.BaseURL)
	str("OPENHUMAN_SEARXNG_DEFAULT_LANGUAGE", &c.SearXNG.DefaultLanguage)
	for _, name := range SearchProviders {
		up := strings.ToUpper(name)
		key, base := getenv("OPENHUMAN_"+up+"_API_KEY"), getenv("OPENHUMAN_"+up+"_BASE_URL")
		if key == "" && base == "" {
			continue
		}
		if c.Search.Providers == nil {
			c.Search.Providers = map[string]SearchProvider{}
		}
		p := c.Search.Providers[name]
		if key != "" {
			p.APIKey = key
		}
		if base != "" {
			p.BaseURL = base
		}
		c.Search.Providers[name] = p
	}
	for key, dst := range map[string]*bool{"OPENHUMAN_SEARXNG_ENABLED": &c.SearXNG.Enabled} {
		if v := getenv(key); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("%s=%q: use true or false", key, v)
			}
			*dst = b
		}
	}
	if v := getenv("OPENHUMAN_SEARCH_ENABLED"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("OPENHUMAN_SEARCH_ENABLED=%q: use true or false", v)
		}
		c.Search.Enabled = &b
	}
	str("OPENHUMAN_EMBEDDINGS_PROVIDER", &c.Memory.Embeddings.Provider)
	str("OPENHUMAN_EMBEDDINGS_BASE_URL", &c.Memory.Embeddings.BaseURL)
	str("OPENHUMAN_EMBEDDINGS_MODEL", &c.Memory.Embeddings.Model)
	str("OPENHUMAN_EMBEDDINGS_API_KEY", &c.Memory.Embeddings.APIKey)
	str("OPENHUMAN_LLM_BASE_URL", &c.LLM.BaseURL)
	str("OPENHUMAN_LLM_MODEL", &c.LLM.Model)
	str("OPENHUMAN_LLM_API_KEY", &c.LLM.APIKey)
	str("OPENHUMAN_METRICS_ADDR", &c.Metrics.Addr)
	if v := getenv("OPENHUMAN_HTTP_ALLOWED_HOSTS"); v != "" {
		c.HTTP.AllowedHosts = nil
		for _, h := range strings.Split(v, ",") {
			if h = strings.TrimSpace(h); h != "" {
				c.HTTP.AllowedHosts = append(c.HTTP.AllowedHosts, h)
			}
		}
	}
	if v := getenv("OPENHUMAN_MEMORY_ENABLED"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("OPENHUMAN_MEMORY_ENABLED=%q: use true or false", v)
		}
		c.Memory.Enabled = &b
	}
	for key, dst := range map[string]*int{
		"OPENHUMAN_TOOL_TIMEOUT_SECONDS":      &c.Tools.TimeoutSeconds,
		"OPENHUMAN_HTTP_SESSION_IDLE_MINUTES": &c.HTTP.SessionIdleMinutes,
		"OPENHUMAN_LLM_TIMEOUT_SECONDS":       &c.LLM.TimeoutSeconds,
		"OPENHUMAN_SEARXNG_MAX_RESULTS":       &c.SearXNG.MaxResults,
		"OPENHUMAN_MAX_ACTIONS_PER_HOUR":      &c.Policy.MaxActionsPerHour,
		"OPENHUMAN_APPROVAL_TIMEOUT_SECONDS":  &c.Approval.TimeoutSeconds,
		"OPENHUMAN_AGENT_TIMEOUT_SECONDS":     &c.Agents.TimeoutSeconds,
		"OPENHUMAN_SEARXNG_TIMEOUT_SECONDS":   &c.SearXNG.TimeoutSeconds,
	} {
		if v := getenv(key); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("%s=%q: use a whole number", key, v)
			}
			*dst = n
		}
	}
	return nil
}

// applyDefaults is the one place defaults live.
func (c *Config) applyDefaults() {
	if c.Log.Level == "" {
		c.Log.Level = "info"
	}
	if c.Memory.Path == "" {
		c.Memory.Path = filepath.Join(c.Home, "memory.db")
	}
	if c.Tools.TimeoutSeconds == 0 {
		c.Tools.TimeoutSeconds = 30
	}
	e := &c.Memory.Embeddings
	if e.Provider == "" {
		e.Provider = "hash"
	}
	if e.BaseURL == "" {
		e.BaseURL = map[string]string{"openai": "https://api.openai.com/v1", "ollama": "http://localhost:11434"}[e.Provider]
	}
	if e.BatchSize == 0 {
		e.BatchSize = 64
	}
	if e.TimeoutSeconds == 0 {
		e.TimeoutSeconds = 30
	}
	if e.Dim == 0 {
		e.Dim = 256
	}
	if c.LLM.TimeoutSeconds == 0 {
		c.LLM.TimeoutSeconds = 60
	}
	if c.LLM.BaseURL == "" && c.LLM.Model != "" {
		c.LLM.BaseURL = "https://api.openai.com/v1"
	}
	if c.HTTP.Addr == "" {
		c.HTTP.Addr = "127.0.0.1:9300"
	}
	if c.MCP.Profile == "" {
		c.MCP.Profile = "v2"
	}
	if c.Search.CacheTTLMinutes == 0 {
		c.Search.CacheTTLMinutes = 10
	}
	if c.Search.Roles.Search == nil {
		c.Search.Roles.Search = []string{"searxng", "brave", "tavily", "exa"}
	}
	if c.Search.Roles.Answer == nil {
		c.Search.Roles.Answer = []string{"gemini", "tavily"}
	}
	for name, p := range c.Search.Providers {
		if p.Route == "" {
			p.Route = "direct"
		}
		if p.TimeoutSeconds == 0 {
			p.TimeoutSeconds = 10
		}
		c.Search.Providers[name] = p
	}
	if c.SearXNG.MaxResults == 0 {
		c.SearXNG.MaxResults = 10
	}
	if c.SearXNG.DefaultLanguage == "" {
		c.SearXNG.DefaultLanguage = "en"
	}
	if c.SearXNG.TimeoutSeconds == 0 {
		c.SearXNG.TimeoutSeconds = 10
	}
	if c.Policy.Autonomy == "" {
		c.Policy.Autonomy = "full"
	}
	if c.Audit.Path == "" {
		c.Audit.Path = filepath.Join(c.Home, "audit.db")
	}
	if c.Audit.MaxRows == 0 {
		c.Audit.MaxRows = 100000
	}
	if c.Approval.Mode == "" {
		c.Approval.Mode = "auto"
	}
	if c.Approval.TimeoutSeconds == 0 {
		c.Approval.TimeoutSeconds = 300
	}
	if c.Agents.TimeoutSeconds == 0 {
		c.Agents.TimeoutSeconds = 300
	}
	if c.Agents.MaxToolResultBytes == 0 {
		c.Agents.MaxToolResultBytes = 16384
	}
	if c.Redis.Prefix == "" {
		c.Redis.Prefix = "openhuman:"
	}
	if c.HTTP.SessionIdleMinutes == 0 {
		c.HTTP.SessionIdleMinutes = 30
	}
	for i := range c.CapabilityProviders {
		c.CapabilityProviders[i].ID = contract.ClientSlug(c.CapabilityProviders[i].ID)
		if c.CapabilityProviders[i].TrustState == "" {
			c.CapabilityProviders[i].TrustState = "untrusted"
		}
	}
}

func (c *Config) validate() error {
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("log.level %q: use debug, info, warn or error", c.Log.Level)
	}
	if c.Tools.TimeoutSeconds < 1 || c.Tools.TimeoutSeconds > 3600 {
		return fmt.Errorf("tools.timeout_seconds %d: use 1 to 3600", c.Tools.TimeoutSeconds)
	}
	if u := c.NATS.URL; u != "" && !strings.Contains(u, "://") {
		return fmt.Errorf("nats.url %q: use a URL such as nats://127.0.0.1:4222", u)
	}
	known := map[string]bool{}
	for _, n := range SearchProviders {
		known[n] = true
	}
	for name, p := range c.Search.Providers {
		if !known[name] {
			return fmt.Errorf("search.providers.%s: unknown provider; use %s", name, strings.Join(SearchProviders, ", "))
		}
		if p.Route != "direct" {
			return fmt.Errorf("search.providers.%s.route %q: only \"direct\" is supported", name, p.Route)
		}
		if p.RatePerMinute < 0 || p.Burst < 0 {
			return fmt.Errorf("search.providers.%s: rate_per_minute and burst must not be negative", name)
		}
	}
	for role, names := range map[string][]string{"search": c.Search.Roles.Search, "answer": c.Search.Roles.Answer} {
		for _, n := range names {
			if !known[n] {
				return fmt.Errorf("search.roles.%s: unknown provider %q; use %s", role, n, strings.Join(SearchProviders, ", "))
			}
		}
	}
	if c.SearXNG.Enabled && !strings.HasPrefix(c.SearXNG.BaseURL, "http://") && !strings.HasPrefix(c.SearXNG.BaseURL, "https://") {
		return fmt.Errorf("searxng.base_url %q: SearXNG is enabled, so set its URL, such as http://localhost:8080", c.SearXNG.BaseURL)
	}
	if c.SearXNG.MaxResults < 1 || c.SearXNG.MaxResults > 20 {
		return fmt.Errorf("searxng.max_results %d: use 1 to 20", c.SearXNG.MaxResults)
	}
	if u := c.Redis.URL; u != "" && !strings.HasPrefix(u, "redis://") && !strings.HasPrefix(u, "rediss://") && !strings.HasPrefix(u, "unix://") {
		return fmt.Errorf("redis.url %q: use redis://host:6379/0", u)
	}
	if c.Policy.Autonomy != "full" && c.Policy.Autonomy != "readonly" {
		return fmt.Errorf("policy.autonomy %q: use full or readonly", c.Policy.Autonomy)
	}
	if c.Policy.MaxActionsPerHour < 0 {
		return fmt.Errorf("policy.max_actions_per_hour %d: use 0 (no budget) or more", c.Policy.MaxActionsPerHour)
	}
	switch c.Approval.Mode {
	case "auto", "deny", "ask":
	default:
		return fmt.Errorf("approval.mode %q: use auto, deny or ask", c.Approval.Mode)
	}
	if c.Approval.TimeoutSeconds < 0 || c.Agents.TimeoutSeconds < 0 || c.Agents.MaxToolResultBytes < 0 || c.Audit.MaxRows < 0 {
		return fmt.Errorf("approval.timeout_seconds, agents.timeout_seconds, agents.max_tool_result_bytes and audit.max_rows must not be negative")
	}
	if c.MCP.Profile != "v2" && c.MCP.Profile != "v1" {
		return fmt.Errorf("mcp.profile %q: use v2 or v1", c.MCP.Profile)
	}
	if _, _, err := net.SplitHostPort(c.HTTP.Addr); err != nil {
		return fmt.Errorf("http.addr %q: use HOST:PORT such as 127.0.0.1:9300", c.HTTP.Addr)
	}
	if c.HTTP.SessionIdleMinutes < 1 || c.HTTP.SessionIdleMinutes > 7*24*60 {
		return fmt.Errorf("http.session_idle_minutes %d: use 1 to 10080", c.HTTP.SessionIdleMinutes)
	}
	if a := c.Metrics.Addr; a != "" && a != "off" {
		if _, _, err := net.SplitHostPort(a); err != nil {
			return fmt.Errorf("metrics.addr %q: use HOST:PORT such as 127.0.0.1:9301, or off", a)
		}
	}
	e := c.Memory.Embeddings
	switch e.Provider {
	case "hash":
		if e.Dim < 16 || e.Dim > 4096 {
			return fmt.Errorf("memory.embeddings.dim %d: use 16 to 4096", e.Dim)
		}
	case "openai", "ollama":
		if e.Model == "" {
			return fmt.Errorf("memory.embeddings.provider %q needs memory.embeddings.model (OPENHUMAN_EMBEDDINGS_MODEL), e.g. %s",
				e.Provider, map[string]string{"openai": "text-embedding-3-small", "ollama": "nomic-embed-text"}[e.Provider])
		}
		if !strings.HasPrefix(e.BaseURL, "http://") && !strings.HasPrefix(e.BaseURL, "https://") {
			return fmt.Errorf("memory.embeddings.base_url %q: use an http(s) URL", e.BaseURL)
		}
	default:
		return fmt.Errorf("memory.embeddings.provider %q: use hash, openai or ollama", e.Provider)
	}
	if e.BatchSize < 1 || e.BatchSize > 2048 {
		return fmt.Errorf("memory.embeddings.batch_size %d: use 1 to 2048", e.BatchSize)
	}
	if u := c.LLM.BaseURL; u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return fmt.Errorf("llm.base_url %q: use an http(s) URL such as http://localhost:11434/v1", u)
	}
	seen := map[string]int{}
	for i, p := range c.CapabilityProviders {
		n := i + 1
		switch {
		case p.ID == "":
			return fmt.Errorf("capability_providers #%d: id is empty or has no letters or digits", n)
		case seen[p.ID] > 0:
			return fmt.Errorf("capability_providers #%d: id %q is a duplicate of #%d after normalization (ids compare lowercased, with runs of other characters as one '-')", n, p.ID, seen[p.ID])
		}
		switch p.TrustState {
		case "trusted", "untrusted", "revoked":
		default:
			return fmt.Errorf("capability_providers #%d (%s): trust_state %q: use trusted, untrusted or revoked", n, p.ID, p.TrustState)
		}
		seen[p.ID] = n
	}
	return nil
}

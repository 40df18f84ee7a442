package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

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

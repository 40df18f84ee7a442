package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/secrets"
)

func (c *Config) validate() error {
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("log.level %q: use debug, info, warn or error", c.Log.Level)
	}
	if c.Tools.Timeout() < time.Second || c.Tools.Timeout() > time.Hour {
		return fmt.Errorf("tools.timeout_seconds %s: use 1 to 3600 seconds (1s to 1h)", c.Tools.TimeoutSeconds)
	}
	if u := c.NATS.URL; u != "" && !strings.Contains(u, "://") {
		// What comes before an @ may be a password: it is not repeated.
		return fmt.Errorf("nats.url %q: use a URL such as nats://127.0.0.1:4222", u[strings.LastIndex(u, "@")+1:])
	}
	if err := c.NATS.validate(); err != nil {
		return err
	}
	if err := c.Bus.validate(); err != nil {
		return err
	}
	known := map[string]bool{}
	for _, n := range SearchProviders {
		known[n] = true
	}
	for name, p := range c.Search.Providers {
		if !known[name] {
			return fmt.Errorf("search.providers.%s: unknown provider; use %s", name, strings.Join(SearchProviders, ", "))
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
		return fmt.Errorf("redis.url %q: use redis://host:6379/0 (redis://:PASSWORD@host:6379/0 with a password)", secrets.RedactURL(u))
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
	if c.Agents.Timeout() > time.Hour {
		// A run's calls are signed within the run's own, which lasts an
		// hour at most (pkg/callauth).
		return fmt.Errorf("agents.timeout_seconds %s: use at most 3600 seconds (1h)", c.Agents.TimeoutSeconds)
	}
	if c.Shutdown.Grace() < time.Second || c.Shutdown.Grace() > 10*time.Minute {
		return fmt.Errorf("shutdown.grace_seconds %s: use 1 to 600 seconds (1s to 10m)", c.Shutdown.GraceSeconds)
	}
	if c.MCP.Profile != "v2" && c.MCP.Profile != "v1" {
		return fmt.Errorf("mcp.profile %q: use v2 or v1", c.MCP.Profile)
	}
	if _, _, err := net.SplitHostPort(c.HTTP.Addr); err != nil {
		return fmt.Errorf("http.addr %q: use HOST:PORT such as 127.0.0.1:9300", c.HTTP.Addr)
	}
	if c.HTTP.SessionIdle() < time.Minute || c.HTTP.SessionIdle() > 7*24*time.Hour {
		return fmt.Errorf("http.session_idle_minutes %s: use 1 to 10080 minutes (1m to 168h)", c.HTTP.SessionIdleMinutes)
	}
	if c.HTTP.MaxSessionsPerAddress < 1 || c.HTTP.MaxSessionsPerAddress > 10000 {
		return fmt.Errorf("http.max_sessions_per_address %d: use 1 to 10000", c.HTTP.MaxSessionsPerAddress)
	}
	if c.HTTP.ConsoleSessionHours < 1 || c.HTTP.ConsoleSessionHours > 30*24 {
		return fmt.Errorf("http.console_session_hours %d: use 1 to 720", c.HTTP.ConsoleSessionHours)
	}
	if c.HTTP.MaxSessionsPerToken < 1 || c.HTTP.MaxSessionsPerToken > 10000 {
		return fmt.Errorf("http.max_sessions_per_token %d: use 1 to 10000", c.HTTP.MaxSessionsPerToken)
	}
	if err := c.HTTP.validateEdge(); err != nil {
		return err
	}
	if a := c.Metrics.Addr; a != "" && a != "off" {
		if _, _, err := net.SplitHostPort(a); err != nil {
			return fmt.Errorf("metrics.addr %q: use HOST:PORT such as 127.0.0.1:9301, or off", a)
		}
	}
	if c.Memory.Replicated && c.NATS.URL == "" {
		return errors.New("memory.replicated (OPENHUMAN_MEMORY_REPLICATED) needs nats.url (OPENHUMAN_NATS_URL): replicas meet on a NATS server with JetStream; without one, leave it false")
	}
	if c.Memory.Replicated && len(c.Memory.IDKeyBytes()) < 16 {
		return errors.New("memory.id_key (OPENHUMAN_MEMORY_ID_KEY) must be at least 32 hex digits when memory.replicated: forgets name items on the stream by a digest keyed with it. Make one with `openssl rand -hex 32` and give every memory replica the same")
	}
	if c.Memory.StreamReplicas < 1 || c.Memory.StreamReplicas > 5 {
		return fmt.Errorf("memory.stream_replicas %d (OPENHUMAN_MEMORY_STREAM_REPLICAS): use 1 to 5 (JetStream's limit); 1 for a single nats-server", c.Memory.StreamReplicas)
	}
	if c.Memory.MaxRestoreMB < 0 {
		return fmt.Errorf("memory.max_restore_mb %d: use 0 (the default, 8192) or more MiB", c.Memory.MaxRestoreMB)
	}
	if c.Memory.MaxImportMB < 0 {
		return fmt.Errorf("memory.max_import_mb %d: use 0 (the default, 4096) or more MiB", c.Memory.MaxImportMB)
	}
	e := c.Memory.Embeddings
	switch e.Provider {
	case "hash-glove", "hash", "hash-wordnet":
		if e.Dim < 16 || e.Dim > 4096 {
			return fmt.Errorf("memory.embeddings.dim %d: use 16 to 4096", e.Dim)
		}
		// hash-glove's GloVe part has 100 components; the hash part keeps
		// at least 16.
		if e.Provider == "hash-glove" && e.Dim < 116 {
			return fmt.Errorf("memory.embeddings.dim %d: hash-glove needs 116 or more (100 of GloVe, the rest hashed)", e.Dim)
		}
	case "minilm":
	case "openai", "ollama":
		if e.Model == "" {
			return fmt.Errorf("memory.embeddings.provider %q needs memory.embeddings.model (OPENHUMAN_EMBEDDINGS_MODEL), e.g. %s",
				e.Provider, map[string]string{"openai": "text-embedding-3-small", "ollama": "nomic-embed-text"}[e.Provider])
		}
		if !strings.HasPrefix(e.BaseURL, "http://") && !strings.HasPrefix(e.BaseURL, "https://") {
			return fmt.Errorf("memory.embeddings.base_url %q: use an http(s) URL", e.BaseURL)
		}
	default:
		return fmt.Errorf("memory.embeddings.provider %q: use hash-glove, hash, hash-wordnet, minilm, openai or ollama", e.Provider)
	}
	if e.Models != "on" && e.Models != "off" {
		return fmt.Errorf("memory.embeddings.models %q (OPENHUMAN_MODELS): use on or off", e.Models)
	}
	if !strings.HasPrefix(e.ModelsHubURL, "http://") && !strings.HasPrefix(e.ModelsHubURL, "https://") {
		return fmt.Errorf("memory.embeddings.models_hub_url %q (OPENHUMAN_MODELS_HUB_URL): use an http(s) URL", e.ModelsHubURL)
	}
	if e.BatchSize < 1 || e.BatchSize > 2048 {
		return fmt.Errorf("memory.embeddings.batch_size %d: use 1 to 2048", e.BatchSize)
	}
	if math.IsNaN(e.RecallMinCosine) || e.RecallMinCosine < 0 || e.RecallMinCosine > 1 {
		return fmt.Errorf("memory.embeddings.recall_min_cosine %g (OPENHUMAN_EMBEDDINGS_RECALL_MIN_COSINE): use a cosine above 0 and at most 1, or 0 for the embedder's own", e.RecallMinCosine)
	}
	if math.IsNaN(e.FusionWeight) || e.FusionWeight < 0 || e.FusionWeight > 10 {
		return fmt.Errorf("memory.embeddings.fusion_weight %g (OPENHUMAN_EMBEDDINGS_FUSION_WEIGHT): use a weight above 0 and at most 10 against the keyword leg's 1, or 0 for the model's own", e.FusionWeight)
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
	if err := c.validateAuth(); err != nil {
		return err
	}
	return c.validateOAuth()
}

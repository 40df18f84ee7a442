package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/secrets"
)

// validate runs configChecks in order and returns the first failure, so a
// file with several mistakes is reported the same way on every load.
func (c *Config) validate() error {
	for _, check := range configChecks {
		if err := check(c); err != nil {
			return err
		}
	}
	return nil
}

// configChecks is the table of settings checks. Each error names the key
// (and its environment variable where people set it that way) and says what
// to use instead; the order is the order the keys are reported in.
var configChecks = []func(*Config) error{
	func(c *Config) error {
		return oneOf("log.level", c.Log.Level, "debug, info, warn or error", "debug", "info", "warn", "error")
	},
	func(c *Config) error {
		return within(c.Tools.Timeout(), time.Second, time.Hour, "tools.timeout_seconds %s: use 1 to 3600 seconds (1s to 1h)", c.Tools.TimeoutSeconds)
	},
	checkNATSURL,
	func(c *Config) error { return c.NATS.validate() },
	func(c *Config) error { return c.Bus.validate() },
	checkSearchProviders,
	checkSearchRoles,
	func(c *Config) error {
		if c.SearXNG.Enabled && !isHTTPURL(c.SearXNG.BaseURL) {
			return fmt.Errorf("searxng.base_url %q: SearXNG is enabled, so set its URL, such as http://localhost:8080", c.SearXNG.BaseURL)
		}
		return nil
	},
	func(c *Config) error {
		return within(c.SearXNG.MaxResults, 1, 20, "searxng.max_results %d: use 1 to 20", c.SearXNG.MaxResults)
	},
	func(c *Config) error {
		if u := c.Redis.URL; u != "" && !hasAnyPrefix(u, "redis://", "rediss://", "unix://") {
			return fmt.Errorf("redis.url %q: use redis://host:6379/0 (redis://:PASSWORD@host:6379/0 with a password)", secrets.RedactURL(u))
		}
		return nil
	},
	func(c *Config) error {
		return oneOf("policy.autonomy", c.Policy.Autonomy, "full or readonly", "full", "readonly")
	},
	func(c *Config) error {
		return atLeast(c.Policy.MaxActionsPerHour, 0, "policy.max_actions_per_hour %d: use 0 (no budget) or more")
	},
	func(c *Config) error {
		return oneOf("approval.mode", c.Approval.Mode, "auto, deny or ask", "auto", "deny", "ask")
	},
	func(c *Config) error {
		if c.Approval.TimeoutSeconds < 0 || c.Agents.TimeoutSeconds < 0 || c.Agents.MaxToolResultBytes < 0 || c.Audit.MaxRows < 0 {
			return fmt.Errorf("approval.timeout_seconds, agents.timeout_seconds, agents.max_tool_result_bytes and audit.max_rows must not be negative")
		}
		return nil
	},
	func(c *Config) error {
		// A run's calls are signed within the run's own, which lasts an
		// hour at most (pkg/callauth).
		if c.Agents.Timeout() > time.Hour {
			return fmt.Errorf("agents.timeout_seconds %s: use at most 3600 seconds (1h)", c.Agents.TimeoutSeconds)
		}
		return nil
	},
	func(c *Config) error {
		return within(c.Shutdown.Grace(), time.Second, 10*time.Minute, "shutdown.grace_seconds %s: use 1 to 600 seconds (1s to 10m)", c.Shutdown.GraceSeconds)
	},
	func(c *Config) error { return oneOf("mcp.profile", c.MCP.Profile, "v2 or v1", "v2", "v1") },
	(*Config).checkHTTP,
	func(c *Config) error { return c.HTTP.validateEdge() },
	func(c *Config) error {
		if a := c.Metrics.Addr; a != "" && a != "off" {
			if _, _, err := net.SplitHostPort(a); err != nil {
				return fmt.Errorf("metrics.addr %q: use HOST:PORT such as 127.0.0.1:9301, or off", a)
			}
		}
		return nil
	},
	(*Config).checkMemory,
	func(c *Config) error { return c.Memory.Embeddings.check() },
	func(c *Config) error {
		if u := c.LLM.BaseURL; u != "" && !isHTTPURL(u) {
			return fmt.Errorf("llm.base_url %q: use an http(s) URL such as http://localhost:11434/v1", u)
		}
		return nil
	},
	checkCapabilityProviders,
	(*Config).validateAuth,
	(*Config).validateOAuth,
}

// oneOf refuses a value that is none of allowed; use lists them for a person.
func oneOf(key, value, use string, allowed ...string) error {
	if slices.Contains(allowed, value) {
		return nil
	}
	return fmt.Errorf("%s %q: use %s", key, value, use)
}

// within refuses v outside [lo, hi] with format, given args.
func within[T int | time.Duration](v, lo, hi T, format string, args ...any) error {
	if v < lo || v > hi {
		return fmt.Errorf(format, args...)
	}
	return nil
}

// atLeast refuses v below lo; format takes v.
func atLeast(v, lo int, format string) error {
	if v < lo {
		return fmt.Errorf(format, v)
	}
	return nil
}

func isHTTPURL(u string) bool { return hasAnyPrefix(u, "http://", "https://") }

func hasAnyPrefix(s string, prefixes ...string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(s, p) })
}

func checkNATSURL(c *Config) error {
	if u := c.NATS.URL; u != "" && !strings.Contains(u, "://") {
		// What comes before an @ may be a password: it is not repeated.
		return fmt.Errorf("nats.url %q: use a URL such as nats://127.0.0.1:4222", u[strings.LastIndex(u, "@")+1:])
	}
	return nil
}

func checkSearchProviders(c *Config) error {
	for name, p := range c.Search.Providers {
		if !slices.Contains(SearchProviders, name) {
			return fmt.Errorf("search.providers.%s: unknown provider; use %s", name, strings.Join(SearchProviders, ", "))
		}
		if p.RatePerMinute < 0 || p.Burst < 0 {
			return fmt.Errorf("search.providers.%s: rate_per_minute and burst must not be negative", name)
		}
	}
	return nil
}

func checkSearchRoles(c *Config) error {
	for role, names := range map[string][]string{"search": c.Search.Roles.Search, "answer": c.Search.Roles.Answer} {
		for _, n := range names {
			if !slices.Contains(SearchProviders, n) {
				return fmt.Errorf("search.roles.%s: unknown provider %q; use %s", role, n, strings.Join(SearchProviders, ", "))
			}
		}
	}
	return nil
}

func (c *Config) checkHTTP() error {
	h := c.HTTP
	if _, _, err := net.SplitHostPort(h.Addr); err != nil {
		return fmt.Errorf("http.addr %q: use HOST:PORT such as 127.0.0.1:9300", h.Addr)
	}
	return firstOf(
		func() error {
			return within(h.SessionIdle(), time.Minute, 7*24*time.Hour, "http.session_idle_minutes %s: use 1 to 10080 minutes (1m to 168h)", h.SessionIdleMinutes)
		},
		func() error {
			return within(h.MaxSessionsPerAddress, 1, 10000, "http.max_sessions_per_address %d: use 1 to 10000", h.MaxSessionsPerAddress)
		},
		func() error {
			return within(h.ConsoleSessionHours, 1, 30*24, "http.console_session_hours %d: use 1 to 720", h.ConsoleSessionHours)
		},
		func() error {
			return within(h.MaxSessionsPerToken, 1, 10000, "http.max_sessions_per_token %d: use 1 to 10000", h.MaxSessionsPerToken)
		},
	)
}

// firstOf runs checks in order and returns the first error.
func firstOf(checks ...func() error) error {
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (c *Config) checkMemory() error {
	m := c.Memory
	return firstOf(
		func() error {
			if m.Replicated && c.NATS.URL == "" {
				return errors.New("memory.replicated (OPENHUMAN_MEMORY_REPLICATED) needs nats.url (OPENHUMAN_NATS_URL): replicas meet on a NATS server with JetStream; without one, leave it false")
			}
			return nil
		},
		func() error {
			if m.Replicated && len(m.IDKeyBytes()) < 16 {
				return errors.New("memory.id_key (OPENHUMAN_MEMORY_ID_KEY) must be at least 32 hex digits when memory.replicated: forgets name items on the stream by a digest keyed with it. Make one with `openssl rand -hex 32` and give every memory replica the same")
			}
			return nil
		},
		func() error {
			return within(m.StreamReplicas, 1, 5, "memory.stream_replicas %d (OPENHUMAN_MEMORY_STREAM_REPLICAS): use 1 to 5 (JetStream's limit); 1 for a single nats-server", m.StreamReplicas)
		},
		func() error {
			return atLeast(m.MaxRestoreMB, 0, "memory.max_restore_mb %d: use 0 (the default, 8192) or more MiB")
		},
		func() error {
			return atLeast(m.MaxImportMB, 0, "memory.max_import_mb %d: use 0 (the default, 4096) or more MiB")
		},
	)
}

// check validates the embedder settings: the provider's own first, then
// those every provider shares.
func (e Embeddings) check() error {
	return firstOf(
		e.checkProvider,
		func() error {
			if e.Models != "on" && e.Models != "off" {
				return fmt.Errorf("memory.embeddings.models %q (OPENHUMAN_MODELS): use on or off", e.Models)
			}
			return nil
		},
		func() error {
			if !isHTTPURL(e.ModelsHubURL) {
				return fmt.Errorf("memory.embeddings.models_hub_url %q (OPENHUMAN_MODELS_HUB_URL): use an http(s) URL", e.ModelsHubURL)
			}
			return nil
		},
		func() error {
			return within(e.BatchSize, 1, 2048, "memory.embeddings.batch_size %d: use 1 to 2048", e.BatchSize)
		},
		func() error {
			if math.IsNaN(e.RecallMinCosine) || e.RecallMinCosine < 0 || e.RecallMinCosine > 1 {
				return fmt.Errorf("memory.embeddings.recall_min_cosine %g (OPENHUMAN_EMBEDDINGS_RECALL_MIN_COSINE): use a cosine above 0 and at most 1, or 0 for the embedder's own", e.RecallMinCosine)
			}
			return nil
		},
		func() error {
			if math.IsNaN(e.FusionWeight) || e.FusionWeight < 0 || e.FusionWeight > 10 {
				return fmt.Errorf("memory.embeddings.fusion_weight %g (OPENHUMAN_EMBEDDINGS_FUSION_WEIGHT): use a weight above 0 and at most 10 against the keyword leg's 1, or 0 for the model's own", e.FusionWeight)
			}
			return nil
		},
	)
}

func (e Embeddings) checkProvider() error {
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
		if !isHTTPURL(e.BaseURL) {
			return fmt.Errorf("memory.embeddings.base_url %q: use an http(s) URL", e.BaseURL)
		}
	default:
		return fmt.Errorf("memory.embeddings.provider %q: use hash-glove, hash, hash-wordnet, minilm, openai or ollama", e.Provider)
	}
	return nil
}

func checkCapabilityProviders(c *Config) error {
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

// Package config loads the one configuration struct every binary uses: defaults,
// then $OPENHUMAN_HOME/config.toml, then OPENHUMAN_* environment variables.
// The result is validated at load, so a mistake is reported at start with the
// key that caused it, not at the first call that trips over it.
//
// Config's struct tags are the one table of settings (see fields.go), so a
// new setting is one tagged field, and EnvVars and config.example.toml's
// test follow it.
package config

import (
	"encoding/hex"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Config is everything a binary may be told.
type Config struct {
	// Home holds the SQLite file and config.toml (OPENHUMAN_HOME, --home).
	Home string `toml:"-"`
	// File is the config.toml that was read, "" when none exists.
	File string `toml:"-"`
	// Deprecated says, one line each, which retired settings the file or
	// the environment still used and what replaces them; the binaries log
	// it as warnings (run.WarnConfig).
	Deprecated []string `toml:"-"`

	NATS     NATS     `toml:"nats"`
	Bus      Bus      `toml:"bus"`
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
	Auth     Auth     `toml:"auth"`
	Shutdown Shutdown `toml:"shutdown"`
	// CapabilityProviders are trusted external tool sources, recorded for
	// governance only: they install and run nothing.
	CapabilityProviders []contract.CapabilityProvider `toml:"capability_providers"`
}

// HTTP configures `openhuman-core serve`.
type HTTP struct {
	// Addr is where serve listens; serve --addr overrides it.
	Addr string `toml:"addr" env:"OPENHUMAN_HTTP_ADDR" default:"127.0.0.1:9300"`
	// SessionIdleMinutes ends an MCP-over-HTTP session unused this long.
	SessionIdleMinutes Minutes `toml:"session_idle_minutes" env:"OPENHUMAN_HTTP_SESSION_IDLE_MINUTES" default:"30"`
	// MaxSessionsPerAddress bounds the MCP-over-HTTP sessions one client
	// address holds, so that one cannot take every session there is.
	MaxSessionsPerAddress int `toml:"max_sessions_per_address" env:"OPENHUMAN_HTTP_MAX_SESSIONS_PER_ADDRESS" default:"64"`
	// MaxSessionsPerToken bounds the sessions opened with one bearer
	// token, wherever from.
	MaxSessionsPerToken int `toml:"max_sessions_per_token" env:"OPENHUMAN_HTTP_MAX_SESSIONS_PER_TOKEN" default:"256"`
	// AllowedHosts are extra Host/Origin host names accepted besides
	// localhost, for a gateway reached by name (DNS-rebinding protection
	// refuses every other). The variable is comma-separated.
	AllowedHosts []string `toml:"allowed_hosts" env:"OPENHUMAN_HTTP_ALLOWED_HOSTS"`
	// AllowNullOrigin accepts requests with "Origin: null" (sandboxed
	// frames, file: and data: pages), which any web site can produce.
	AllowNullOrigin bool `toml:"allow_null_origin" env:"OPENHUMAN_HTTP_ALLOW_NULL_ORIGIN"`
	// ConsoleSessionHours is how long a console sign-in lasts.
	ConsoleSessionHours int `toml:"console_session_hours" env:"OPENHUMAN_HTTP_CONSOLE_SESSION_HOURS" default:"12"`
	// ConsoleSecureCookies marks the console's session cookie Secure (and
	// names it __Host-) on plain-HTTP requests too: for a proxy that
	// terminates TLS in front of serve. Requests over TLS get it anyway.
	ConsoleSecureCookies bool `toml:"console_secure_cookies" env:"OPENHUMAN_HTTP_CONSOLE_SECURE_COOKIES"`
	// PublicURL is the origin remote clients reach serve at, such as
	// https://memory.example.com (a TLS reverse proxy in front of it): the
	// OAuth documents name it, and with it the built-in authorization
	// server is on. Its host is accepted in Host and Origin.
	PublicURL string `toml:"public_url" env:"OPENHUMAN_HTTP_PUBLIC_URL"`
	// TrustedProxies are the proxies (addresses or CIDR ranges) whose
	// X-Forwarded-For is believed: behind one, the client address that
	// limits and logs count is the one it forwarded for, not its own.
	// None by default: a header anyone can write moves no limit. The
	// variable is comma-separated.
	TrustedProxies []string `toml:"trusted_proxies" env:"OPENHUMAN_HTTP_TRUSTED_PROXIES"`
	// MaxBodyBytesInFlight bounds the request body bytes the process holds
	// at once, across all requests; past it a request is answered 503 with
	// Retry-After rather than read.
	MaxBodyBytesInFlight int `toml:"max_body_bytes_in_flight" env:"OPENHUMAN_HTTP_MAX_BODY_BYTES_IN_FLIGHT" default:"67108864"`
}

// MaxRequestBodyBytes is the largest body any route reads (/rpc and
// /mcp); the in-flight budget must hold at least one.
const MaxRequestBodyBytes = 4 << 20

// ConsoleSession is how long a console sign-in lasts.
func (h HTTP) ConsoleSession() time.Duration { return time.Duration(h.ConsoleSessionHours) * time.Hour }

// SessionIdle is how long an idle MCP-over-HTTP session lives.
func (h HTTP) SessionIdle() time.Duration { return h.SessionIdleMinutes.D() }

// Metrics configures the /metrics listener of a service binary; the
// gateway serves /metrics on its own HTTP address.
type Metrics struct {
	// Addr to listen on; "off" disables it. Each binary has its own
	// default, so there is none here.
	Addr string `toml:"addr" env:"OPENHUMAN_METRICS_ADDR"`
}

// NATS says where the bus is. An empty URL means embedded mode: the gateway
// starts its own in-process server and services. With a URL, the rest says
// how to prove who this binary is to that server (one method at most) and
// which TLS to use.
type NATS struct {
	URL string `toml:"url" env:"OPENHUMAN_NATS_URL"`
	// User and Password are the server's user/password authentication.
	User     string `toml:"user" env:"OPENHUMAN_NATS_USER"`
	Password string `toml:"password" env:"OPENHUMAN_NATS_PASSWORD"`
	// Token is the server's token authentication.
	Token string `toml:"token" env:"OPENHUMAN_NATS_TOKEN"`
	// NKey is the path of a file holding an nkey seed (SU...).
	NKey string `toml:"nkey" env:"OPENHUMAN_NATS_NKEY"`
	// Creds is the path of a .creds file (a user JWT and its seed), for a
	// server in operator mode.
	Creds string `toml:"creds" env:"OPENHUMAN_NATS_CREDS"`
	// TLSCA is a PEM file of the CAs to trust instead of the system's;
	// TLSCert and TLSKey are the client certificate the server may ask for.
	TLSCA   string `toml:"tls_ca" env:"OPENHUMAN_NATS_TLS_CA"`
	TLSCert string `toml:"tls_cert" env:"OPENHUMAN_NATS_TLS_CERT"`
	TLSKey  string `toml:"tls_key" env:"OPENHUMAN_NATS_TLS_KEY"`
}

// Log sets the log level: debug, info, warn or error.
type Log struct {
	Level string `toml:"level" env:"OPENHUMAN_LOG_LEVEL" default:"info"`
}

// Memory configures the memory service.
type Memory struct {
	// Enabled false turns memory off: its tools answer MEMORY_OFF. Nil is on.
	Enabled *bool `toml:"enabled" env:"OPENHUMAN_MEMORY_ENABLED"`
	// Path of the SQLite database; default <home>/memory.db.
	Path string `toml:"path" env:"OPENHUMAN_MEMORY_PATH"`
	// Replicated makes every memory replica materialize its SQLite from
	// one JetStream stream of writes (distributed mode only: it needs
	// nats.url). false keeps one independent store per process.
	Replicated bool `toml:"replicated" env:"OPENHUMAN_MEMORY_REPLICATED"`
	// Replication is the setting Replicated took over (see retired.go).
	Replication retiredReplication `toml:"replication"`
	// StreamReplicas is how many NATS servers keep the stream and the
	// snapshot bucket: 3 for a three-server cluster, 1 for a single server.
	StreamReplicas int `toml:"stream_replicas" env:"OPENHUMAN_MEMORY_STREAM_REPLICAS" default:"3"`
	// IDKey is a secret, in hex, shared by every memory replica when
	// replicated: a forget names items on the stream by a digest of their
	// ids keyed with it, so the stream cannot confirm a guess of forgotten
	// text. Required when Replicated.
	IDKey string `toml:"id_key" env:"OPENHUMAN_MEMORY_ID_KEY"`
	// MaxRestoreMB bounds, in MiB, what openhuman-core restore writes: a
	// backup whose files come to more is refused before anything is
	// written, so a crafted one cannot fill the disk.
	MaxRestoreMB int `toml:"max_restore_mb" env:"OPENHUMAN_MEMORY_MAX_RESTORE_MB" default:"8192"`
	// MaxImportMB bounds, in MiB, the records and conversation turns one
	// openhuman-core import stores, counted as they are sent to memory:
	// a small file that unfolds into far more (one entity with a long name
	// and many observations) is refused before anything is stored.
	MaxImportMB int        `toml:"max_import_mb" env:"OPENHUMAN_MEMORY_MAX_IMPORT_MB" default:"4096"`
	Embeddings  Embeddings `toml:"embeddings"`
}

// IDKeyBytes is IDKey decoded (nil when unset or not hex; Load refuses
// that when replicated).
func (m Memory) IDKeyBytes() []byte {
	b, err := hex.DecodeString(strings.TrimSpace(m.IDKey))
	if err != nil {
		return nil
	}
	return b
}

// MaxRestoreBytes is MaxRestoreMB in bytes.
func (m Memory) MaxRestoreBytes() int64 { return int64(m.MaxRestoreMB) << 20 }

// MaxImportBytes is MaxImportMB in bytes.
func (m Memory) MaxImportBytes() int64 { return int64(m.MaxImportMB) << 20 }

// Embeddings chooses the embedder of memory's vector leg.
type Embeddings struct {
	// Provider is minilm (the default: all-MiniLM-L6-v2 run in-process,
	// fetched once from the model hub in the background; hash-glove until
	// it is there, and with models off), hash-glove (built in, offline:
	// hash plus GloVe word vectors), hash (built in, offline: spelling
	// only), hash-wordnet (hash plus WordNet concepts, offline), openai
	// (any OpenAI-compatible /v1/embeddings: OpenAI, Ollama, llama.cpp,
	// vLLM) or ollama (Ollama's /api/embed).
	Provider string `toml:"provider" env:"OPENHUMAN_EMBEDDINGS_PROVIDER" default:"minilm"`
	// BaseURL defaults to the provider's usual address.
	BaseURL string `toml:"base_url" env:"OPENHUMAN_EMBEDDINGS_BASE_URL"`
	Model   string `toml:"model" env:"OPENHUMAN_EMBEDDINGS_MODEL"`
	APIKey  string `toml:"api_key" env:"OPENHUMAN_EMBEDDINGS_API_KEY"`
	// BatchSize is how many texts go in one request.
	BatchSize int `toml:"batch_size" default:"64"`
	// TimeoutSeconds bounds one request.
	TimeoutSeconds Seconds `toml:"timeout_seconds" default:"30"`
	// Dim is the built-in embedders' dimension (hash-glove: GloVe's 100
	// and the hash part's rest).
	Dim int `toml:"dim" default:"256"`
	// RecallMinCosine is the cosine from which memory.recall quotes a note
	// on its vector alone, sharing too few of the question's words; 0 is
	// the embedder's own (0.6 for hash-glove, 0.5 otherwise). A model's
	// cosines between unrelated sentences may run higher: make eval shows
	// where "I don't know" holds.
	RecallMinCosine float64 `toml:"recall_min_cosine" env:"OPENHUMAN_EMBEDDINGS_RECALL_MIN_COSINE"`
	// FusionWeight is what the configured model's vectors weigh in hybrid
	// search against the keyword leg's 1; 0 is the model's own: its
	// measured figure when docs/memory.md lists one, else 1 (0.5 for
	// hash-glove, 0.3 for hash).
	FusionWeight float64 `toml:"fusion_weight" env:"OPENHUMAN_EMBEDDINGS_FUSION_WEIGHT"`
	// Models is "on" or "off": off, no model is fetched or loaded, minilm
	// stays on hash-glove and memory ranks without the cross-encoder:
	// memory as it was before it ran models of its own.
	Models string `toml:"models" env:"OPENHUMAN_MODELS" default:"on"`
	// ModelsHubURL is the model hub the models are fetched from, once:
	// Hugging Face's, or a mirror that serves its /<repo>/resolve/<rev>/
	// paths.
	ModelsHubURL string `toml:"models_hub_url" env:"OPENHUMAN_MODELS_HUB_URL" default:"https://huggingface.co"`
	// ModelsDir holds the fetched models; empty is $OPENHUMAN_HOME/models.
	ModelsDir string `toml:"models_dir" env:"OPENHUMAN_MODELS_DIR"`
}

// Timeout bounds one embedding request.
func (e Embeddings) Timeout() time.Duration { return e.TimeoutSeconds.D() }

// LLM is an OpenAI-compatible chat completions endpoint (OpenAI, Ollama at
// http://localhost:11434/v1, llama.cpp server, vLLM, OpenRouter). Without a
// model, features that need one say so instead of pretending.
type LLM struct {
	// BaseURL defaults to OpenAI's once a model is set.
	BaseURL        string  `toml:"base_url" env:"OPENHUMAN_LLM_BASE_URL"`
	Model          string  `toml:"model" env:"OPENHUMAN_LLM_MODEL"`
	APIKey         string  `toml:"api_key" env:"OPENHUMAN_LLM_API_KEY"`
	TimeoutSeconds Seconds `toml:"timeout_seconds" env:"OPENHUMAN_LLM_TIMEOUT_SECONDS" default:"60"`
}

// Configured reports whether a model is set.
func (l LLM) Configured() bool { return l.Model != "" }

// Timeout bounds one chat completion.
func (l LLM) Timeout() time.Duration { return l.TimeoutSeconds.D() }

// On reports whether memory is enabled (the default).
func (m Memory) On() bool { return m.Enabled == nil || *m.Enabled }

// Search configures the web tools.
type Search struct {
	// Enabled false turns the search service off. Nil is on.
	Enabled *bool `toml:"enabled" env:"OPENHUMAN_SEARCH_ENABLED"`
	// CacheTTLMinutes keeps results this long.
	CacheTTLMinutes Minutes     `toml:"cache_ttl_minutes" default:"10"`
	Roles           SearchRoles `toml:"roles"`
	// Providers are searxng, brave, tavily, exa and gemini. An entry is
	// made for a provider when its variables are set.
	Providers map[string]SearchProvider `toml:"providers"`
}

// On reports whether search is enabled (the default).
func (s Search) On() bool { return s.Enabled == nil || *s.Enabled }

// SearchRoles order the providers tried for each role.
type SearchRoles struct {
	Search []string `toml:"search" default:"searxng,brave,tavily,exa"`
	Answer []string `toml:"answer" default:"gemini,tavily"`
}

// SearchProvider configures one provider. A provider is used when it is not
// disabled and has what it needs: an API key, or for SearXNG [searxng].
type SearchProvider struct {
	Enabled *bool `toml:"enabled"`
	// Route is gone (see retired.go): files that still say "direct" read.
	Route  retiredRoute `toml:"route"`
	APIKey string       `toml:"api_key" env:"OPENHUMAN_*_API_KEY"`
	// BaseURL is for a proxy or a self-hosted gateway.
	BaseURL string `toml:"base_url" env:"OPENHUMAN_*_BASE_URL"`
	// Model is gemini's answering model; the provider defaults it to
	// gemini-2.5-flash.
	Model string `toml:"model"`
	// TimeoutSeconds bounds one call.
	TimeoutSeconds Seconds `toml:"timeout_seconds" default:"10"`
	// RatePerMinute and Burst limit our calls (0: no limit of ours).
	RatePerMinute int `toml:"rate_per_minute"`
	Burst         int `toml:"burst"`
}

// On reports whether the provider is not disabled.
func (p SearchProvider) On() bool { return p.Enabled == nil || *p.Enabled }

// SearXNG is the self-hosted SearXNG instance, as the original documents it.
type SearXNG struct {
	Enabled         bool    `toml:"enabled" env:"OPENHUMAN_SEARXNG_ENABLED"`
	BaseURL         string  `toml:"base_url" env:"OPENHUMAN_SEARXNG_BASE_URL"`
	MaxResults      int     `toml:"max_results" env:"OPENHUMAN_SEARXNG_MAX_RESULTS" default:"10"`
	DefaultLanguage string  `toml:"default_language" env:"OPENHUMAN_SEARXNG_DEFAULT_LANGUAGE" default:"en"`
	TimeoutSeconds  Seconds `toml:"timeout_seconds" env:"OPENHUMAN_SEARXNG_TIMEOUT_SECONDS" default:"10"`
}

// Redis is shared state for replicas: the search cache and rate limits.
// Without a URL they are kept in each process.
type Redis struct {
	// URL is such as redis://127.0.0.1:6379/0.
	URL    string `toml:"url" env:"OPENHUMAN_REDIS_URL"`
	Prefix string `toml:"prefix" env:"OPENHUMAN_REDIS_PREFIX" default:"openhuman:"`
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
	// Autonomy is full or readonly.
	Autonomy string `toml:"autonomy" env:"OPENHUMAN_AUTONOMY" default:"full"`
	// MaxActionsPerHour is the action budget (0: none).
	MaxActionsPerHour int `toml:"max_actions_per_hour" env:"OPENHUMAN_MAX_ACTIONS_PER_HOUR"`
}

// Audit is the trail of writes.
type Audit struct {
	// Enabled nil is on.
	Enabled *bool `toml:"enabled"`
	// Path defaults to <home>/audit.db.
	Path    string `toml:"path"`
	MaxRows int    `toml:"max_rows" default:"100000"`
}

// On reports whether writes are audited (the default).
func (a Audit) On() bool { return a.Enabled == nil || *a.Enabled }

// Approval gates sub-agents' side effects.
type Approval struct {
	// Mode is auto (allowed and audited), deny, or ask (parked until
	// decided over openhuman.approval_decide).
	Mode string `toml:"mode" env:"OPENHUMAN_APPROVAL_MODE" default:"auto"`
	// TimeoutSeconds denies a parked call nobody decided.
	TimeoutSeconds Seconds `toml:"timeout_seconds" env:"OPENHUMAN_APPROVAL_TIMEOUT_SECONDS" default:"300"`
}

// Timeout is how long a parked call waits.
func (a Approval) Timeout() time.Duration { return a.TimeoutSeconds.D() }

// Agents configures sub-agent runs.
type Agents struct {
	// TimeoutSeconds bounds one run, tools included.
	TimeoutSeconds Seconds `toml:"timeout_seconds" env:"OPENHUMAN_AGENT_TIMEOUT_SECONDS" default:"300"`
	// MaxToolResultBytes caps a tool result fed back to the model.
	MaxToolResultBytes int `toml:"max_tool_result_bytes" default:"16384"`
	// Models names a model per sub-agent id instead of [llm] model.
	Models map[string]string `toml:"models"`
}

// Timeout bounds one run.
func (a Agents) Timeout() time.Duration { return a.TimeoutSeconds.D() }

// SearchProviders are the provider names search knows.
var SearchProviders = []string{"searxng", "brave", "tavily", "exa", "gemini"}

// MCP configures `openhuman-core mcp`.
type MCP struct {
	// Profile is the tool surface: v2 or v1, the older read-only memory
	// tree. `mcp --profile` overrides it.
	Profile string `toml:"profile" env:"OPENHUMAN_MCP_PROFILE" default:"v2"`
}

// Tools configures tool calls.
type Tools struct {
	// TimeoutSeconds bounds one tool call end to end.
	TimeoutSeconds Seconds `toml:"timeout_seconds" env:"OPENHUMAN_TOOL_TIMEOUT_SECONDS"`
}

// Timeout is the tool call deadline.
func (t Tools) Timeout() time.Duration { return t.TimeoutSeconds.D() }

// Shutdown says how a binary stops when told to (SIGTERM, Ctrl-C).
type Shutdown struct {
	// GraceSeconds is how long calls already being handled may take to
	// finish once a binary is told to stop; past it they are cut off. An
	// orchestrator's stop timeout must be longer (compose: stop_grace_period).
	GraceSeconds Seconds `toml:"grace_seconds" env:"OPENHUMAN_SHUTDOWN_GRACE_SECONDS" default:"20"`
}

// Grace is how long calls in flight may take to finish at shutdown.
func (s Shutdown) Grace() time.Duration { return s.GraceSeconds.D() }

package config

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoad(t *testing.T) {
	t.Run("zero config is valid", func(t *testing.T) {
		home := t.TempDir()
		c, err := Load(home, env(nil))
		if err != nil {
			t.Fatal(err)
		}
		if c.NATS.URL != "" || !c.Memory.On() || c.Memory.Path != filepath.Join(home, "memory.db") || c.Tools.Timeout() != 30*time.Second || c.File != "" {
			t.Errorf("defaults: %+v", c)
		}
	})
	t.Run("home from env", func(t *testing.T) {
		home := t.TempDir()
		c, err := Load("", env(map[string]string{"OPENHUMAN_HOME": home}))
		if err != nil || c.Home != home {
			t.Fatalf("home %q, %v", c.Home, err)
		}
	})
	t.Run("named file", func(t *testing.T) {
		home, dir := t.TempDir(), t.TempDir()
		path := filepath.Join(dir, "elsewhere.toml")
		if err := os.WriteFile(path, []byte("[log]\nlevel = \"warn\"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(home, env(map[string]string{"OPENHUMAN_CONFIG": path}))
		if err != nil || c.File != path || c.Log.Level != "warn" {
			t.Fatalf("file %q, level %q, %v", c.File, c.Log.Level, err)
		}
	})
	t.Run("file then env", func(t *testing.T) {
		home := t.TempDir()
		write(t, home, "[nats]\nurl = \"nats://file:4222\"\n[memory]\nenabled = false\n[log]\nlevel = \"debug\"\n")
		c, err := Load(home, env(map[string]string{"OPENHUMAN_NATS_URL": "nats://env:4222"}))
		if err != nil {
			t.Fatal(err)
		}
		if c.NATS.URL != "nats://env:4222" || c.Memory.On() || c.Log.Level != "debug" || c.File == "" {
			t.Errorf("got %+v", c)
		}
	})
	t.Run("trusted proxies and the body budget", func(t *testing.T) {
		home := t.TempDir()
		write(t, home, "[http]\ntrusted_proxies = [\"127.0.0.1\", \"172.18.0.0/16\", \"::1\"]\n")
		c, err := Load(home, env(map[string]string{"OPENHUMAN_HTTP_MAX_BODY_BYTES_IN_FLIGHT": "8388608"}))
		if err != nil || len(c.HTTP.TrustedProxies) != 3 || c.HTTP.MaxBodyBytesInFlight != 8<<20 {
			t.Fatalf("proxies %v, budget %d, %v", c.HTTP.TrustedProxies, c.HTTP.MaxBodyBytesInFlight, err)
		}
		if c, _ := Load(t.TempDir(), env(nil)); len(c.HTTP.TrustedProxies) != 0 || c.HTTP.MaxBodyBytesInFlight != 64<<20 {
			t.Errorf("defaults: proxies %v, budget %d", c.HTTP.TrustedProxies, c.HTTP.MaxBodyBytesInFlight)
		}
	})
	t.Run("0 counts as not set", func(t *testing.T) {
		home := t.TempDir()
		write(t, home, "[http]\nconsole_session_hours = 0\n")
		c, err := Load(home, env(map[string]string{"OPENHUMAN_HTTP_MAX_SESSIONS_PER_ADDRESS": "0"}))
		if err != nil || c.HTTP.ConsoleSessionHours != 12 || c.HTTP.MaxSessionsPerAddress != 64 {
			t.Fatalf("hours %d, sessions %d, %v", c.HTTP.ConsoleSessionHours, c.HTTP.MaxSessionsPerAddress, err)
		}
	})
	t.Run("restore and import limits", func(t *testing.T) {
		c, err := Load(t.TempDir(), env(map[string]string{"OPENHUMAN_MEMORY_MAX_IMPORT_MB": "0"}))
		if err != nil || c.Memory.MaxRestoreBytes() != 8<<30 || c.Memory.MaxImportBytes() != 4<<30 {
			t.Fatalf("restore %d, import %d bytes, %v", c.Memory.MaxRestoreBytes(), c.Memory.MaxImportBytes(), err)
		}
		c, err = Load(t.TempDir(), env(map[string]string{"OPENHUMAN_MEMORY_MAX_RESTORE_MB": "16384"}))
		if err != nil || c.Memory.MaxRestoreBytes() != 16<<30 {
			t.Fatalf("restore %d bytes, %v", c.Memory.MaxRestoreBytes(), err)
		}
	})
	for _, tc := range []struct {
		name, file, want string
		env              map[string]string
	}{
		{name: "unknown key", file: "[nats]\nurll = \"x\"\n", want: "unknown key nats.urll (did you mean nats.url?)"},
		{name: "bad toml", file: "[nats\n", want: "config.toml"},
		{name: "bad level", file: "[log]\nlevel = \"loud\"\n", want: "log.level"},
		{name: "a number in quotes", file: "[http]\nmax_sessions_per_token = \"60\"\n", want: "config.toml: line 2: http.max_sessions_per_token is a string but must be a whole number: write it without quotes, such as 30"},
		{name: "a number for a string", file: "[log]\nlevel = 5\n", want: `line 2: log.level is a whole number but must be a string: write it in double quotes, such as "info"`},
		{name: "a list for a string", file: "[log]\nlevel = [\"debug\"]\n", want: "log.level is a list but must be a string"},
		{name: "a string for a switch", file: "[memory]\nenabled = \"yes\"\n", want: "memory.enabled is a string but must be true or false: write it without quotes: true or false"},
		{name: "bad level set by its variable", env: map[string]string{"OPENHUMAN_LOG_LEVEL": "shouty"}, want: `OPENHUMAN_LOG_LEVEL: log.level "shouty": use debug`},
		{name: "bad url", env: map[string]string{"OPENHUMAN_NATS_URL": "localhost"}, want: "OPENHUMAN_NATS_URL: nats.url"},
		{name: "bad bool", env: map[string]string{"OPENHUMAN_MEMORY_ENABLED": "perhaps"}, want: "OPENHUMAN_MEMORY_ENABLED"},
		{name: "bad timeout", env: map[string]string{"OPENHUMAN_TOOL_TIMEOUT_SECONDS": "-3"}, want: "OPENHUMAN_TOOL_TIMEOUT_SECONDS: tools.timeout_seconds"},
		{name: "a run of over an hour", env: map[string]string{"OPENHUMAN_AGENT_TIMEOUT_SECONDS": "7200"}, want: "OPENHUMAN_AGENT_TIMEOUT_SECONDS: agents.timeout_seconds 2h0m0s: use at most 3600 seconds (1h)"},
		{name: "a public key to sign with", env: map[string]string{"OPENHUMAN_BUS_SIGNING_SEED": "UAXXGQ3AUJ7FIMD7XKNOBEDVVGLH5PIS3RR4YKJDWHFSTH5NO2PPUEZ4"}, want: "holds a public key"},
		{name: "a malformed key", env: map[string]string{"OPENHUMAN_BUS_GATEWAY_KEY": "UABC"}, want: "bus.gateway_key (OPENHUMAN_BUS_GATEWAY_KEY): not an nkey public key"},
		{name: "a malformed seed", env: map[string]string{"OPENHUMAN_BUS_SIGNING_SEED": "SUABC"}, want: "bus.signing_seed (OPENHUMAN_BUS_SIGNING_SEED): not an nkey seed"},
		{name: "a proxy that is no address", file: "[http]\ntrusted_proxies = [\"proxy.internal\"]\n", want: `http.trusted_proxies "proxy.internal": not an IP address; list the proxy`},
		{name: "a proxy range that does not parse", env: map[string]string{"OPENHUMAN_HTTP_TRUSTED_PROXIES": "10.0.0.5, 10.0.0.0/33"}, want: `OPENHUMAN_HTTP_TRUSTED_PROXIES: http.trusted_proxies "10.0.0.0/33": not a CIDR range`},
		{name: "a body budget below one body", file: "[http]\nmax_body_bytes_in_flight = 1024\n", want: "http.max_body_bytes_in_flight 1024: use 4194304 (4 MiB, one body of the largest kind)"},
		{name: "named file missing", env: map[string]string{"OPENHUMAN_CONFIG": "/nonexistent/openhuman.toml"}, want: "OPENHUMAN_CONFIG=/nonexistent/openhuman.toml: no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if tc.file != "" {
				write(t, home, tc.file)
			}
			_, err := Load(home, env(tc.env))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error naming %q", err, tc.want)
			}
			if len(tc.env) == 0 && strings.Contains(err.Error(), "OPENHUMAN_") {
				t.Errorf("a value of the file is blamed on a variable: %v", err)
			}
		})
	}
}

func write(t *testing.T, home, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestCapabilityProviders(t *testing.T) {
	home := t.TempDir()
	write(t, home, `
[[capability_providers]]
id = "Acme Tools"
display_name = "Acme Tools"
source_uri = "https://example.com/openhuman/acme-tools"
source_digest = "sha256:abc123"
trust_state = "trusted"
enabled = true

[[capability_providers]]
id = "beta"
enabled = true
`)
	c, err := Load(home, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.CapabilityProviders) != 2 || c.CapabilityProviders[0].ID != "acme-tools" || !c.CapabilityProviders[0].Eligible() {
		t.Errorf("got %+v", c.CapabilityProviders)
	}
	if c.CapabilityProviders[1].TrustState != "untrusted" || c.CapabilityProviders[1].Eligible() {
		t.Errorf("an entry without trust_state must default to untrusted: %+v", c.CapabilityProviders[1])
	}

	for name, tc := range map[string]struct{ file, want string }{
		"duplicate after normalization": {"[[capability_providers]]\nid = \"Acme Tools\"\n[[capability_providers]]\nid = \"acme--tools\"\n", `#2: id "acme-tools" is a duplicate of #1`},
		"empty id":                      {"[[capability_providers]]\nid = \"!!\"\n", "#1: id is empty"},
		"bad trust":                     {"[[capability_providers]]\nid = \"x\"\ntrust_state = \"maybe\"\n", `trust_state "maybe"`},
		"bad http addr":                 {"[http]\naddr = \"9300\"\n", "http.addr"},
		"bad metrics addr":              {"[metrics]\naddr = \"everywhere\"\n", "metrics.addr"},
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			write(t, home, tc.file)
			if _, err := Load(home, env(nil)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestSearchConfig(t *testing.T) {
	t.Run("the documented SearXNG sections", func(t *testing.T) {
		home := t.TempDir()
		write(t, home, `
[search.providers.searxng]
enabled = true
route = "direct"

[searxng]
enabled = true
base_url = "http://localhost:8080"
max_results = 10
default_language = "en"
timeout_seconds = 10
`)
		c, err := Load(home, env(nil))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(c.UsableSearchProviders(), ","); got != "searxng" {
			t.Fatalf("usable %q", got)
		}
		if c.SearXNG.BaseURL != "http://localhost:8080" || c.SearXNG.MaxResults != 10 || c.SearXNG.TimeoutSeconds.D() != 10*time.Second {
			t.Fatalf("searxng %+v", c.SearXNG)
		}
	})
	t.Run("the documented environment variables", func(t *testing.T) {
		c, err := Load(t.TempDir(), env(map[string]string{
			"OPENHUMAN_SEARXNG_ENABLED":          "true",
			"OPENHUMAN_SEARXNG_BASE_URL":         "http://localhost:8080",
			"OPENHUMAN_SEARXNG_MAX_RESULTS":      "7",
			"OPENHUMAN_SEARXNG_DEFAULT_LANGUAGE": "de",
			"OPENHUMAN_SEARXNG_TIMEOUT_SECONDS":  "4",
			"OPENHUMAN_BRAVE_API_KEY":            "b",
			"OPENHUMAN_GEMINI_API_KEY":           "g",
			"OPENHUMAN_EXA_BASE_URL":             "http://proxy:1",
			"OPENHUMAN_REDIS_URL":                "redis://127.0.0.1:6379/2",
		}))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(c.UsableSearchProviders(), ","); got != "searxng,brave,gemini" {
			t.Fatalf("usable %q (exa has a base URL but no key)", got)
		}
		if c.SearXNG.MaxResults != 7 || c.SearXNG.DefaultLanguage != "de" || c.SearXNG.TimeoutSeconds.D() != 4*time.Second || c.Redis.URL != "redis://127.0.0.1:6379/2" || c.Redis.Prefix != "openhuman:" {
			t.Fatalf("got %+v %+v", c.SearXNG, c.Redis)
		}
		if c.Search.Providers["brave"].TimeoutSeconds.D() != 10*time.Second || strings.Join(c.Search.Roles.Search, ",") != "searxng,brave,tavily,exa" {
			t.Fatalf("defaults %+v", c.Search)
		}
	})
	t.Run("disabled", func(t *testing.T) {
		home := t.TempDir()
		write(t, home, "[search.providers.brave]\nenabled = false\napi_key = \"b\"\n[search.providers.tavily]\napi_key = \"t\"\n[search.roles]\nsearch = [\"tavily\"]\n")
		c, err := Load(home, env(nil))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(c.UsableSearchProviders(), ","); got != "tavily" {
			t.Fatalf("usable %q", got)
		}
		c, _ = Load(home, env(map[string]string{"OPENHUMAN_SEARCH_ENABLED": "false"}))
		if len(c.UsableSearchProviders()) != 0 {
			t.Fatal("search disabled, yet providers are usable")
		}
	})
	for name, tc := range map[string]struct {
		file string
		env  map[string]string
		want string
	}{
		"unknown provider":    {file: "[search.providers.bing]\napi_key = \"x\"\n", want: "search.providers.bing: unknown provider; use searxng, brave, tavily, exa, gemini"},
		"unknown in a role":   {file: "[search.roles]\nsearch = [\"google\"]\n", want: `search.roles.search: unknown provider "google"`},
		"route":               {file: "[search.providers.searxng]\nroute = \"proxy\"\n", want: `route = "proxy": the route setting is gone (its only value was "direct"`},
		"searxng without url": {env: map[string]string{"OPENHUMAN_SEARXNG_ENABLED": "true"}, want: "searxng.base_url"},
		"searxng max":         {file: "[searxng]\nmax_results = 50\n", want: "searxng.max_results 50: use 1 to 20"},
		"redis url":           {env: map[string]string{"OPENHUMAN_REDIS_URL": "127.0.0.1:6379"}, want: "redis.url"},
		"search bool":         {env: map[string]string{"OPENHUMAN_SEARCH_ENABLED": "yes please"}, want: "OPENHUMAN_SEARCH_ENABLED"},
		"negative rate":       {file: "[search.providers.brave]\nrate_per_minute = -1\n", want: "rate_per_minute"},
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			if tc.file != "" {
				write(t, home, tc.file)
			}
			if _, err := Load(home, env(tc.env)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// testIDKey is a memory.id_key as `openssl rand -hex 32` makes one.
const testIDKey = "5f1c9a3e7b2d4f60a8e1c3b5d7f90123456789abcdef0123456789abcdef0123"

func TestReplicationNeedsNATS(t *testing.T) {
	for env, want := range map[string]string{
		"OPENHUMAN_MEMORY_REPLICATED=true":            "memory.replicated (OPENHUMAN_MEMORY_REPLICATED) needs nats.url (OPENHUMAN_NATS_URL)",
		"OPENHUMAN_MEMORY_REPLICATED=jetstream":       `OPENHUMAN_MEMORY_REPLICATED="jetstream": use true or false`,
		"OPENHUMAN_MEMORY_STREAM_REPLICAS=7":          "memory.stream_replicas 7 (OPENHUMAN_MEMORY_STREAM_REPLICAS): use 1 to 5",
		"OPENHUMAN_MEMORY_MAX_RESTORE_MB=-1":          "OPENHUMAN_MEMORY_MAX_RESTORE_MB: memory.max_restore_mb -1: use 0 (the default, 8192) or more MiB",
		"OPENHUMAN_MEMORY_MAX_IMPORT_MB=-1":           "OPENHUMAN_MEMORY_MAX_IMPORT_MB: memory.max_import_mb -1: use 0 (the default, 4096) or more MiB",
		"OPENHUMAN_EMBEDDINGS_RECALL_MIN_COSINE=NaN":  "memory.embeddings.recall_min_cosine NaN (OPENHUMAN_EMBEDDINGS_RECALL_MIN_COSINE): use a cosine",
		"OPENHUMAN_EMBEDDINGS_RECALL_MIN_COSINE=1.5":  "memory.embeddings.recall_min_cosine 1.5 (OPENHUMAN_EMBEDDINGS_RECALL_MIN_COSINE): use a cosine above 0 and at most 1",
		"OPENHUMAN_EMBEDDINGS_RECALL_MIN_COSINE=high": `OPENHUMAN_EMBEDDINGS_RECALL_MIN_COSINE="high": use a number such as 0.55`,
		"OPENHUMAN_EMBEDDINGS_FUSION_WEIGHT=-1":       "memory.embeddings.fusion_weight -1 (OPENHUMAN_EMBEDDINGS_FUSION_WEIGHT): use a weight above 0",
		"OPENHUMAN_EMBEDDINGS_FUSION_WEIGHT=NaN":      "memory.embeddings.fusion_weight NaN",
		"OPENHUMAN_MODELS=maybe":                      `memory.embeddings.models "maybe" (OPENHUMAN_MODELS): use on or off`,
		"OPENHUMAN_MODELS_HUB_URL=huggingface.co":     `memory.embeddings.models_hub_url "huggingface.co" (OPENHUMAN_MODELS_HUB_URL): use an http(s) URL`,
	} {
		k, v, _ := strings.Cut(env, "=")
		_, err := Load(t.TempDir(), func(name string) string { return map[string]string{k: v}[name] })
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", env, err, want)
		}
	}
	replicated := map[string]string{"OPENHUMAN_MEMORY_REPLICATED": "true", "OPENHUMAN_NATS_URL": "nats://127.0.0.1:4222"}
	for _, key := range []string{"", "abc", "not hex at all, but long enough to pass for one"} {
		vars := map[string]string{"OPENHUMAN_MEMORY_ID_KEY": key}
		maps.Copy(vars, replicated)
		if _, err := Load(t.TempDir(), func(name string) string { return vars[name] }); err == nil || !strings.Contains(err.Error(), "memory.id_key (OPENHUMAN_MEMORY_ID_KEY) must be at least 32 hex digits") {
			t.Errorf("replicated with id_key %q: %v", key, err)
		}
	}
	replicated["OPENHUMAN_MEMORY_ID_KEY"] = testIDKey
	c, err := Load(t.TempDir(), func(name string) string { return replicated[name] })
	if err != nil || !c.Memory.Replicated || len(c.Deprecated) != 0 || c.Memory.StreamReplicas != 3 || len(c.Memory.IDKeyBytes()) != 32 {
		t.Fatalf("replicated config: %v %+v", err, c.Memory)
	}
	c, err = Load(t.TempDir(), func(name string) string {
		return map[string]string{"OPENHUMAN_EMBEDDINGS_RECALL_MIN_COSINE": "0.55"}[name]
	})
	if err != nil || c.Memory.Embeddings.RecallMinCosine != 0.55 {
		t.Fatalf("recall_min_cosine from the environment: %v %v", err, c.Memory.Embeddings.RecallMinCosine)
	}
	c, err = Load(t.TempDir(), func(name string) string {
		return map[string]string{"OPENHUMAN_EMBEDDINGS_FUSION_WEIGHT": "1.5"}[name]
	})
	if err != nil || c.Memory.Embeddings.FusionWeight != 1.5 {
		t.Fatalf("fusion_weight from the environment: %v %v", err, c.Memory.Embeddings.FusionWeight)
	}
}

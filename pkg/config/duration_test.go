package config

import (
	"strings"
	"testing"
	"time"
)

// A duration setting keeps its name and the meaning of a whole number in
// the unit the name says, and takes a Go duration as well, in the file and
// in its variable.
func TestDurations(t *testing.T) {
	for _, tc := range []struct {
		file string
		env  map[string]string
		want func(Config) time.Duration
		is   time.Duration
	}{
		{"[tools]\ntimeout_seconds = 45\n", nil, func(c Config) time.Duration { return c.Tools.Timeout() }, 45 * time.Second},
		{"[tools]\ntimeout_seconds = \"1m30s\"\n", nil, func(c Config) time.Duration { return c.Tools.Timeout() }, 90 * time.Second},
		{"", map[string]string{"OPENHUMAN_TOOL_TIMEOUT_SECONDS": "12"}, func(c Config) time.Duration { return c.Tools.Timeout() }, 12 * time.Second},
		{"", map[string]string{"OPENHUMAN_TOOL_TIMEOUT_SECONDS": "2m"}, func(c Config) time.Duration { return c.Tools.Timeout() }, 2 * time.Minute},
		{"", nil, func(c Config) time.Duration { return c.Tools.Timeout() }, 30 * time.Second},
		{"[http]\nsession_idle_minutes = 5\n", nil, func(c Config) time.Duration { return c.HTTP.SessionIdle() }, 5 * time.Minute},
		{"[http]\nsession_idle_minutes = \"2h\"\n", nil, func(c Config) time.Duration { return c.HTTP.SessionIdle() }, 2 * time.Hour},
		{"", map[string]string{"OPENHUMAN_HTTP_SESSION_IDLE_MINUTES": "90s"}, func(c Config) time.Duration { return c.HTTP.SessionIdle() }, 90 * time.Second},
		{"[search]\ncache_ttl_minutes = \"30s\"\n", nil, func(c Config) time.Duration { return c.Search.CacheTTLMinutes.D() }, 30 * time.Second},
		{"[search.providers.brave]\ntimeout_seconds = 3\n", nil, func(c Config) time.Duration { return c.Search.Providers["brave"].TimeoutSeconds.D() }, 3 * time.Second},
		{"[shutdown]\ngrace_seconds = \"45s\"\n", nil, func(c Config) time.Duration { return c.Shutdown.Grace() }, 45 * time.Second},
		{"", map[string]string{"OPENHUMAN_LLM_TIMEOUT_SECONDS": "1m"}, func(c Config) time.Duration { return c.LLM.Timeout() }, time.Minute},
		{"", nil, func(c Config) time.Duration { return c.Approval.Timeout() }, 5 * time.Minute},
	} {
		home := t.TempDir()
		if tc.file != "" {
			write(t, home, tc.file)
		}
		c, err := Load(home, env(tc.env))
		if err != nil {
			t.Errorf("%q %v: %v", tc.file, tc.env, err)
			continue
		}
		if got := tc.want(c); got != tc.is {
			t.Errorf("%q %v: %s, want %s", tc.file, tc.env, got, tc.is)
		}
	}
	for _, tc := range []struct {
		file string
		env  map[string]string
		want string
	}{
		{"[tools]\ntimeout_seconds = \"soon\"\n", nil, `"soon": use a whole number of seconds, or a duration such as "30s"`},
		{"[tools]\ntimeout_seconds = 1.5\n", nil, "use a whole number of seconds"},
		{"", map[string]string{"OPENHUMAN_TOOL_TIMEOUT_SECONDS": "1.5"}, `OPENHUMAN_TOOL_TIMEOUT_SECONDS="1.5": use a whole number of seconds`},
		{"", map[string]string{"OPENHUMAN_TOOL_TIMEOUT_SECONDS": "2h"}, "tools.timeout_seconds 2h0m0s: use 1 to 3600 seconds (1s to 1h)"},
		{"[http]\nsession_idle_minutes = \"10s\"\n", nil, "http.session_idle_minutes 10s: use 1 to 10080 minutes"},
	} {
		home := t.TempDir()
		if tc.file != "" {
			write(t, home, tc.file)
		}
		if _, err := Load(home, env(tc.env)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q %v: %v, want %q", tc.file, tc.env, err, tc.want)
		}
	}
}

// route, whose only value was "direct", is gone: an old file that says so
// still loads.
func TestRetiredRouteStillReads(t *testing.T) {
	home := t.TempDir()
	write(t, home, "[search.providers.brave]\nroute = \"direct\"\napi_key = \"k\"\n")
	c, err := Load(home, env(nil))
	if err != nil || c.Search.Providers["brave"].APIKey != "k" {
		t.Fatalf("%v %+v", err, c.Search.Providers)
	}
	for _, k := range knownKeys() {
		if strings.HasSuffix(k, ".route") {
			t.Errorf("%s is still listed as a setting", k)
		}
	}
}
